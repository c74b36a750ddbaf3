package proxy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestNothingHeldWhileWaiting: events that arrive together may leave in
// one write, but none waits for the next: with the upstream silent after
// ten events, the client has all ten — in a plain turn and in a turn with
// server tools, on every route.
func TestNothingHeldWhileWaiting(t *testing.T) {
	routes := []struct{ path, body string }{
		{"/v1/chat/completions", chatBody},
		{"/v1/responses", `{"model":"m","stream":true,"input":"hi"}`},
		{"/v1/messages", `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`},
	}
	for _, tools := range []bool{false, true} {
		for _, route := range routes {
			t.Run(fmt.Sprintf("%s server tools %v", strings.TrimPrefix(route.path, "/v1/"), tools), func(t *testing.T) {
				nothingHeld(t, tools, route.path, route.body)
			})
		}
	}
}

// nothingHeld streams ten words to a client of path, then keeps the
// upstream silent: the tenth must reach the client all the same.
func nothingHeld(t *testing.T, tools bool, path, body string) {
	parts := make([]string, 10)
	for i := range parts {
		parts[i] = fmt.Sprintf("w%d ", i)
	}
	gate := make(chan struct{})
	events := upstreamtest.Text("c1", "m", parts...)
	// The role chunk, ten words, then silence until the gate opens: the
	// finish chunk and [DONE] come after it.
	rd := upstreamtest.Round{Events: events, Gate: gate, GateAfter: len(events) - 1}
	fe := newFaultEnv(t, tools, []upstreamtest.Round{rd}, nil)
	defer close(gate)
	// Bounded: a held event would otherwise wait for the gate, which
	// opens only when the test ends.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st := openStreamAt(t, fe.turnEnv, ctx, path, body, "Authorization: Bearer "+faultClientKey)
	st.until(t, `w9`)
}

// TestApprovalShownWhileUpstreamSilent: a call that waits for approval is
// shown at once, even while the model's stream is still open and silent
// after the call.
func TestApprovalShownWhileUpstreamSilent(t *testing.T) {
	gate := make(chan struct{})
	events := upstreamtest.Text("c1", "m", "Checking. ", call("t", `{"q":1}`))
	// Everything up to the call, then silence until the test ends.
	rd := upstreamtest.Round{Events: events, Gate: gate, GateAfter: len(events) - 1}
	fe := newFaultEnv(t, true, []upstreamtest.Round{rd}, func(c *config.Config) { c.Tools[0].Approval = "always" })
	defer close(gate)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st := openStream(t, fe.turnEnv, ctx, chatBody, "Authorization: Bearer "+faultClientKey)
	st.until(t, `"approval.requested"`)
}
