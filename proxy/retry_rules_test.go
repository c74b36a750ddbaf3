package proxy_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestRetryRulesMatchEachOther: the two ways a retry is recognised — the
// same Idempotency-Key, or x-stainless-retry-count ≥ 1 with the same body —
// find each other's attempts, so a non-idempotent webhook runs once
// whichever way the first attempt and its retry were told apart. Before,
// a body retry did not look at an attempt that carried a key, and a keyed
// retry did not look at one without, and the tool ran twice.
func TestRetryRulesMatchEachOther(t *testing.T) {
	for _, tc := range []struct {
		name          string
		first, second []string // headers besides Authorization
	}{
		{"keyed attempt, body retry without the key",
			[]string{"Idempotency-Key: stainless-python-retry-7"},
			[]string{"X-Stainless-Retry-Count: 1"}},
		{"attempt without a key, keyed body retry",
			[]string{"X-Stainless-Retry-Count: 0"},
			[]string{"Idempotency-Key: stainless-python-retry-8", "X-Stainless-Retry-Count: 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rounds := []upstreamtest.Round{
				textRound("c1", "Adding it. ", call("create_task", `{"title":"Gym"}`)),
				textRound("c2", "Done."),
				textRound("c3", "Adding it. ", call("create_task", `{"title":"Gym"}`)),
				textRound("c4", "Done again."),
			}
			e, _ := newStoredEnv(t, approvalConfig("never"), rounds)
			for i, hs := range [][]string{tc.first, tc.second} {
				resp := e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest,
					append([]string{"Authorization: Bearer " + apClientKey}, hs...)...)
				if body := readAll(t, resp); !strings.Contains(body, "[DONE]") {
					t.Fatalf("attempt %d:\n%s", i+1, body)
				}
			}
			if got := e.hooks.received(); len(got) != 1 {
				t.Fatalf("webhook calls = %d, want 1 (the retry must not run the call again)", len(got))
			}
			if reqs := e.up.Requests(); len(reqs) != 4 || !strings.Contains(string(reqs[3].Body), `\"ok\":true`) {
				t.Errorf("the retry's round 2 does not carry the recorded result (%d requests)", len(reqs))
			}
		})
	}
}
