package loop_test

import (
	"context"
	"errors"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
)

// TestBeforeRound: the hook is asked between rounds, never before the
// first, and its error ends the turn before the next round's request is
// sent (a key revoked while its tools ran).
func TestBeforeRound(t *testing.T) {
	revoked := errors.New("key revoked")
	for _, tc := range []struct {
		name     string
		hook     func(int) error
		wantErr  error
		wantOpen int
		wantAsk  []int
	}{
		{"allowed", func(int) error { return nil }, nil, 2, []int{2}},
		{"revoked between rounds", func(int) error { return revoked }, revoked, 1, []int{2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lc := config.Default().Loop
			lc.Keepalive = 0
			up := &rounds{events: [][]string{
				{chunk(`{"role":"assistant","content":""}`, ""), hermesCall("good"), chunk(`{}`, "stop"), "[DONE]"},
				{chunk(`{"role":"assistant","content":"Done."}`, ""), chunk(`{}`, "stop"), "[DONE]"},
			}}
			req, err := loop.ParseRequest([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			var asked []int
			turn := &loop.Turn{Request: req, Upstream: up, UpstreamName: "mem", Format: "hermes",
				Tools: []toolhost.Tool{{Name: "good"}}, Executor: verdicts{}, Loop: lc, Mode: config.ToolModeText,
				BeforeRound: func(n int) error { asked = append(asked, n); return tc.hook(n) }}
			_, err = (&loop.Runner{}).Run(context.Background(), turn, discard{})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Run: %v, want %v", err, tc.wantErr)
			}
			if up.n != tc.wantOpen {
				t.Errorf("upstream got %d requests, want %d", up.n, tc.wantOpen)
			}
			if len(asked) != len(tc.wantAsk) || asked[0] != tc.wantAsk[0] {
				t.Errorf("asked before rounds %v, want %v", asked, tc.wantAsk)
			}
		})
	}
}
