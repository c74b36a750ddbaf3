package proxy_test

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestMarkersSplitAtEveryByte: for each text format, the model's reply
// "Before. <block> After." arrives as two content deltas cut at every
// position in turn, and once as one delta per character. (A JSON string
// cannot hold half a rune, so deltas are cut between runes; the same
// bytes on the wire are also written one at a time, so the proxy reads the
// SSE cut inside runes too.) Whatever the cut, the client reads exactly
// the text around the block in one message, the call runs once, and round
// 2 carries its result.
func TestMarkersSplitAtEveryByte(t *testing.T) {
	blocks := map[string]string{
		"hermes":       "<tool_call>\n{\"name\": \"create_task\", \"arguments\": {\"title\": \"Gym ☀\"}}\n</tool_call>",
		"xml":          "<tool_use>\n<invoke name=\"create_task\">\n<parameter name=\"title\">Gym ☀</parameter>\n</invoke>\n</tool_use>",
		"tool_request": "<<<[TOOL_REQUEST]>>>\ntool_name:「始」create_task「末」,\ntitle:「始」Gym ☀「末」\n<<<[END_TOOL_REQUEST]>>>",
	}
	for format, block := range blocks {
		t.Run(format, func(t *testing.T) {
			text := "Before. " + block + " After."
			cfg := strings.Replace(turnConfig(""), "text_format: hermes", "text_format: "+format, 1)
			var splits [][]string
			for i := 1; i < len(text); i++ {
				if utf8.RuneStart(text[i]) {
					splits = append(splits, []string{text[:i], text[i:]})
				}
			}
			var runewise []string
			for _, r := range text {
				runewise = append(runewise, string(r))
			}
			splits = append(splits, runewise)

			var rounds []upstreamtest.Round
			for n, parts := range splits {
				r1 := textRound("c1", parts...)
				r1.SplitEvery = n%2 + n%3 // whole events, or 1 or 2 bytes at a time
				rounds = append(rounds, r1, textRound("c2", "Done."))
			}
			e := newTurnEnv(t, cfg, rounds)
			for n, parts := range splits {
				body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest))
				if got, want := joinedContent(t, body), "Before.  After.Done."; got != want {
					t.Fatalf("split %d %q: client read %q, want %q", n, parts[0], got, want)
				}
				if c := strings.Count(body, `"event":"tool.started"`); c != 1 || !strings.Contains(body, `"name":"create_task"`) {
					t.Fatalf("split %d: %d tool.started events:\n%s", n, c, body)
				}
				second := string(e.up.Requests()[2*n+1].Body)
				if !strings.Contains(second, `Gym ☀`) || !strings.Contains(second, `\"ok\":true`) {
					t.Fatalf("split %d: round 2 lacks the result: %s", n, second)
				}
			}
			if calls := len(e.hooks.received()); calls != len(splits) {
				t.Errorf("webhook called %d times for %d turns", calls, len(splits))
			}
		})
	}
}
