package proxy_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestProbeMarkupInStrings (fault probe, fault 8): a hermes block whose
// JSON value holds the block's own markers is one call. The probe saw the
// block with "<tool_call>" in a value shown whole and not run, and the
// one with "</tool_call>" in a value become a PARSE_ERROR whose tail the
// client read. The block arrives in small chunks, so the markers in the
// value are split across them too.
func TestProbeMarkupInStrings(t *testing.T) {
	for _, tc := range []struct {
		name  string
		block string
		query string // the q the webhook must receive
	}{
		{"the opening marker in a value",
			`<tool_call>{"name":"create_task","arguments":{"title":"what is <tool_call>"}}</tool_call>`,
			"what is <tool_call>"},
		{"the closing marker in a value",
			`<tool_call>{"name":"create_task","arguments":{"title":"a</tool_call>b"}}</tool_call>`,
			"a</tool_call>b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var parts []string
			for s := tc.block; s != ""; {
				n := min(len(s), 5)
				parts, s = append(parts, s[:n]), s[n:]
			}
			r1 := textRound("r1", append([]string{"Checking. "}, parts...)...)
			e := newTurnEnv(t, turnConfig(""), []upstreamtest.Round{r1, textRound("r2", "Done.")})
			resp := e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest)
			body := readAll(t, resp)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			if got := joinedContent(t, body); got != "Checking. Done." {
				t.Errorf("client read %q, want %q: no byte of the block", got, "Checking. Done.")
			}
			var titles []any
			for _, c := range e.hooks.received() {
				args, _ := c.Body["arguments"].(map[string]any)
				titles = append(titles, args["title"])
			}
			if want := []any{tc.query}; !cmp.Equal(titles, want) {
				t.Errorf("webhook got titles %q, want %q", titles, want)
			}
			if strings.Contains(body, "PARSE_ERROR") {
				t.Error("the turn had a PARSE_ERROR")
			}
		})
	}
}
