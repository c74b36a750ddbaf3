package proxy_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestParseRetriesRounds counts upstream rounds for a model that writes the
// same malformed block whatever it is told (docs/tool-calls.md): round 1, then
// parse_retries rounds that feed the PARSE_ERROR back with the tools still
// taught, then one last round that says no tools are left so the user gets
// an answer — parse_retries + 2 rounds in all, never more. The last round
// keeps the prompt: it extends the round before byte for byte.
func TestParseRetriesRounds(t *testing.T) {
	malformed := textRound("c", "Adding. ", call("create_task", `5`))
	for _, retries := range []int{0, 1, 2} {
		t.Run(fmt.Sprint("parse_retries=", retries), func(t *testing.T) {
			// More rounds scripted than allowed: an extra round would be
			// answered, not refused, so the count is the proxy's own.
			var rounds []upstreamtest.Round
			for range retries + 4 {
				rounds = append(rounds, malformed)
			}
			e := newTurnEnv(t, turnConfig(fmt.Sprintf("  parse_retries: %d\n", retries)), rounds)
			body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest))
			if !strings.HasSuffix(body, "data: [DONE]\n\n") {
				t.Fatalf("turn did not finish: %s", body)
			}
			reqs := e.up.Requests()
			if got, want := len(reqs), retries+2; got != want {
				t.Fatalf("%d upstream rounds, want %d", got, want)
			}
			for i, r := range reqs {
				last := i == len(reqs)-1
				// Text mode teaches the tools in a system message, the
				// last round too; only the last says no call can run.
				if taught := strings.Contains(string(r.Body), `"role":"system"`); !taught {
					t.Errorf("round %d: tools not taught", i+1)
				}
				if noted := strings.Contains(string(r.Body), "You cannot call tools any more"); noted != last {
					t.Errorf("round %d: told no tools are left = %v, want %v", i+1, noted, last)
				}
				if told := strings.Contains(string(r.Body), "PARSE_ERROR"); told != (i > 0) {
					t.Errorf("round %d: PARSE_ERROR fed back = %v, want %v", i+1, told, i > 0)
				}
			}
		})
	}
}
