package keys

import (
	"net/http"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestLimiterRequests(t *testing.T) {
	l := newLimiter(config.Limits{RequestsPerMinute: 60}, t0)
	for i := range 60 {
		v, release := l.Admit(t0)
		if !v.OK {
			t.Fatalf("request %d of a burst of 60 refused: %+v", i+1, v)
		}
		release()
	}
	v, release := l.Admit(t0)
	if v.OK || release != nil || v.Kind != KindRequests {
		t.Fatalf("61st request in the same instant: %+v", v)
	}
	if v.RetryAfter != time.Second {
		t.Errorf("RetryAfter = %v, want 1s (one request refills per second at 60/min)", v.RetryAfter)
	}
	if v, _ := l.Admit(t0.Add(999 * time.Millisecond)); v.OK {
		t.Errorf("admitted 999ms later, before a whole request refilled")
	}
	if v, _ := l.Admit(t0.Add(time.Second)); !v.OK {
		t.Errorf("refused a second later: %+v", v)
	}
	// A refused request spends nothing: after a minute the bucket is full.
	if v := l.Peek(t0.Add(2 * time.Minute)); int(v.Requests) != 60 || v.ResetReq != 0 {
		t.Errorf("after two idle minutes: requests %v reset %v, want 60 and 0", v.Requests, v.ResetReq)
	}
}

func TestLimiterTokens(t *testing.T) {
	l := newLimiter(config.Limits{TokensPerMinute: 1200}, t0)
	v, release := l.Admit(t0)
	if !v.OK {
		t.Fatal(v)
	}
	release()
	l.Spend(t0, 1500) // one turn may overshoot; it is not cut
	v, _ = l.Admit(t0)
	if v.OK || v.Kind != KindTokens {
		t.Fatalf("after overspending: %+v", v)
	}
	// -300 tokens, refilled at 20/s: 301 tokens take 15.05s.
	// (Rounded up to the nanosecond, never down: waiting it must do.)
	if want := 15050 * time.Millisecond; v.RetryAfter < want || v.RetryAfter > want+time.Microsecond {
		t.Errorf("RetryAfter = %v, want %v", v.RetryAfter, want)
	}
	if v, _ := l.Admit(t0.Add(16 * time.Second)); !v.OK {
		t.Errorf("refused after the debt refilled: %+v", v)
	}
	// The debt is bounded by one minute's worth.
	l.Spend(t0.Add(16*time.Second), 1_000_000)
	if v := l.Peek(t0.Add(16 * time.Second)); v.Tokens != -1200 {
		t.Errorf("debt %v, want -1200", v.Tokens)
	}
}

func TestLimiterConcurrent(t *testing.T) {
	l := newLimiter(config.Limits{ConcurrentTurns: 2}, t0)
	_, r1 := l.Admit(t0)
	_, r2 := l.Admit(t0)
	v, r3 := l.Admit(t0)
	if v.OK || r3 != nil || v.Kind != KindConcurrent || v.RetryAfter != time.Second {
		t.Fatalf("third concurrent turn: %+v", v)
	}
	r1()
	r1() // a second release of the same turn frees nothing more
	v, r4 := l.Admit(t0)
	if !v.OK {
		t.Fatalf("after one ended: %+v", v)
	}
	if v, _ := l.Admit(t0); v.OK {
		t.Errorf("a double release freed two slots")
	}
	r2()
	r4()
	if v := l.Peek(t0); v.Active != 0 {
		t.Errorf("active %d after all ended", v.Active)
	}
}

func TestLimiterSetLimitsKeepsSpent(t *testing.T) {
	l := newLimiter(config.Limits{RequestsPerMinute: 10}, t0)
	for range 8 {
		l.Admit(t0)
	}
	l.SetLimits(config.Limits{RequestsPerMinute: 5}, t0)
	if v := l.Peek(t0); v.Requests != 2 {
		t.Errorf("lowered to 5 with 2 left: %v left", v.Requests)
	}
	l.SetLimits(config.Limits{RequestsPerMinute: 5, TokensPerMinute: 100}, t0)
	if v := l.Peek(t0); v.Tokens != 100 {
		t.Errorf("a new token limit starts full: %v", v.Tokens)
	}
}

func TestVerdictHeaders(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Verdict
		want map[string]string
	}{
		{"requests only", Verdict{OK: true, Limit: config.Limits{RequestsPerMinute: 60}, Requests: 41.7, ResetReq: 18300 * time.Millisecond},
			map[string]string{"X-Ratelimit-Limit-Requests": "60", "X-Ratelimit-Remaining-Requests": "41", "X-Ratelimit-Reset-Requests": "18.3s", "X-Ratelimit-Limit-Tokens": "", "Retry-After": ""}},
		{"tokens in debt", Verdict{OK: true, Limit: config.Limits{TokensPerMinute: 1000}, Tokens: -20, ResetTok: 61200 * time.Millisecond},
			map[string]string{"X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "1m1.2s", "X-Ratelimit-Limit-Requests": ""}},
		{"refused", Verdict{Kind: KindRequests, RetryAfter: 1200 * time.Millisecond, Limit: config.Limits{RequestsPerMinute: 2}},
			map[string]string{"Retry-After": "2", "Retry-After-Ms": "1200", "X-Ratelimit-Remaining-Requests": "0"}},
		{"refused under a millisecond", Verdict{Kind: KindTokens, RetryAfter: 10 * time.Microsecond, Limit: config.Limits{TokensPerMinute: 2}},
			map[string]string{"Retry-After": "1", "Retry-After-Ms": "1"}},
		{"concurrency only: no OpenAI headers", Verdict{OK: true, Limit: config.Limits{ConcurrentTurns: 3}},
			map[string]string{"X-Ratelimit-Limit-Requests": "", "X-Ratelimit-Limit-Tokens": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			tc.v.SetHeaders(h)
			for k, want := range tc.want {
				if got := h.Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

// TestLimiterRequestsAndHold: what /mcp counts. AdmitRequests counts n
// requests, all or none, and neither takes a turn nor minds the token
// limit; Hold takes a turn without counting a request.
func TestLimiterRequestsAndHold(t *testing.T) {
	l := newLimiter(config.Limits{RequestsPerMinute: 3, TokensPerMinute: 10, ConcurrentTurns: 1}, t0)
	l.Spend(t0, 100) // the token limit is spent: no model request may go
	if v := l.AdmitRequests(t0, 2); !v.OK || v.Active != 0 {
		t.Fatalf("2 of 3 requests: %+v", v)
	}
	if v := l.AdmitRequests(t0, 2); v.OK || v.Kind != KindRequests {
		t.Fatalf("2 more with 1 left: %+v", v)
	}
	if v := l.AdmitRequests(t0, 1); !v.OK || v.Requests != 0 {
		t.Fatalf("the last one: %+v (a refused pair must have spent nothing)", v)
	}
	v, release := l.Hold(t0)
	if !v.OK || release == nil {
		t.Fatalf("a turn with no requests left: %+v", v)
	}
	if v, again := l.Hold(t0); v.OK || again != nil || v.Kind != KindConcurrent {
		t.Fatalf("a second turn with concurrent_turns 1: %+v", v)
	}
	release()
	release() // twice is once
	if v, again := l.Hold(t0); !v.OK {
		t.Fatalf("a turn after the first ended: %+v", v)
	} else {
		again()
	}
	if v := l.Peek(t0); v.Active != 0 {
		t.Errorf("active %d after every turn ended", v.Active)
	}
}
