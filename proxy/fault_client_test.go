package proxy_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// clientFault is one point at which a client hangs up, and what must be
// left behind: nothing running, and the record saying what happened.
type clientFault struct {
	name   string
	tools  bool
	rounds []upstreamtest.Round
	mutate func(*config.Config)
	// hold makes the webhook hold its answer until the request is
	// cancelled.
	hold bool
	// until is what the client reads before it hangs up: a data payload
	// containing it. "" hangs up once the upstream has the request, before
	// any response has come.
	until string

	upstreamCancelled bool
	hookCancelled     bool
	hookCalls         int
	// audit lists the audit log's statuses; action, when set, is the
	// approval's status after the client left.
	audit  []string
	action string
}

// TestClientFaults: a client that hangs up at any point of a turn cancels
// what is under way for it — the upstream's request, a running webhook, a
// pending approval — leaves no goroutine behind, and leaves the turn and
// its calls on record.
func TestClientFaults(t *testing.T) {
	never := make(chan struct{})
	approve := func(c *config.Config) { c.Tools[0].Approval = "always" }
	toolRound := textRound("r1", "Checking. ", call("t", `{"q":1}`))
	for _, tc := range []clientFault{
		{name: "before the response starts",
			rounds:            []upstreamtest.Round{{Wait: never, Events: hello}},
			upstreamCancelled: true},
		{name: "before the first token",
			rounds:            []upstreamtest.Round{{Events: hello, StallAfter: 1}},
			until:             `"role":"assistant"`,
			upstreamCancelled: true},
		{name: "mid-text",
			rounds:            []upstreamtest.Round{{Events: hello, StallAfter: 2}},
			until:             `"Hello"`,
			upstreamCancelled: true},
		{name: "mid-text in a tool turn", tools: true,
			rounds:            []upstreamtest.Round{{Events: hello, StallAfter: 2}},
			until:             `"Hello"`,
			upstreamCancelled: true},
		{name: "mid-tool", tools: true, hold: true,
			rounds: []upstreamtest.Round{toolRound, textRound("r2", "never")},
			until:  `"tool.started"`,
			// The webhook got the request before the client left: it
			// may have acted, so the outcome is unknown, not cancelled.
			hookCancelled: true, hookCalls: 1, audit: []string{"outcome_unknown"}},
		{name: "mid-approval", tools: true, mutate: approve,
			rounds: []upstreamtest.Round{toolRound, textRound("r2", "never")},
			until:  `"approval.requested"`,
			audit:  []string{"cancelled"}, action: "expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Registered first, so it runs after the env's own cleanup
			// has closed its servers: whatever the turn started must be
			// gone by then.
			ignore := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
			runClientFault(t, tc)
		})
	}
}

func runClientFault(t *testing.T, tc clientFault) {
	fe := newFaultEnv(t, tc.tools, tc.rounds, tc.mutate)
	if tc.hold {
		// Released when the test ends (before the servers close), so a
		// webhook that was not cancelled fails the case instead of
		// hanging it.
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		fe.hooks.answer("t", hookAnswer{body: `{}`, wait: release})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var actionID string
	if tc.until == "" {
		// No response comes: send from a goroutine, hang up once the
		// upstream holds the request.
		done := make(chan struct{})
		go func() {
			defer close(done)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, fe.srv.URL+"/v1/chat/completions", strings.NewReader(chatBody))
			req.Header.Set("Authorization", "Bearer "+faultClientKey)
			if resp, err := fe.client.Do(req); err == nil {
				resp.Body.Close()
				t.Error("a response came from an upstream that never answered")
			}
		}()
		waitFor(t, "the upstream to get the request", func() bool { return len(fe.up.Requests()) == 1 })
		cancel()
		<-done
	} else {
		st := openStream(t, fe.turnEnv, ctx, chatBody, "Authorization: Bearer "+faultClientKey)
		got := st.until(t, tc.until)
		if tc.action != "" {
			actionID, _ = event(t, got)["action_id"].(string)
		}
		if tc.hold {
			select {
			case <-fe.hooks.arrivals:
			case <-time.After(10 * time.Second):
				t.Fatal("the webhook was never called")
			}
		}
		cancel()
		st.resp.Body.Close()
	}

	if tc.upstreamCancelled && !fe.hungUp() {
		t.Error("the upstream's request was not cancelled")
	}
	if tc.hookCancelled {
		select {
		case <-fe.hooks.cancelled:
		case <-time.After(10 * time.Second):
			t.Error("the webhook's request was not cancelled")
		}
	}
	// The turn is logged once the handler has unwound; everything below
	// is read after that.
	waitFor(t, "the turn's log line", func() bool { return strings.Contains(fe.log.String(), "msg=turn ") })
	if log := fe.log.String(); !strings.Contains(log, "status=client_closed") {
		t.Errorf("the turn is not logged as client_closed:\n%s", log)
	}
	if n := len(fe.up.Requests()); n != 1 {
		t.Errorf("the upstream saw %d rounds, want 1", n)
	}
	if tc.tools {
		if n := len(fe.hooks.received()); n != tc.hookCalls {
			t.Errorf("the webhook was called %d times, want %d", n, tc.hookCalls)
		}
		if a := fe.auditStatuses(t); strings.Join(a, ",") != strings.Join(tc.audit, ",") {
			t.Errorf("audit log %v, want %v", a, tc.audit)
		}
	}
	if tc.action != "" {
		code, out := fe.jsonDo(t, http.MethodGet, "/v1/actions/"+actionID, "", faultAdminKey)
		if code != http.StatusOK || out["status"] != tc.action {
			t.Errorf("action %s: %d %v, want status %s", actionID, code, out, tc.action)
		}
	}
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestClientBadRequests: requests the proxy refuses on its own — the
// upstream never hears of them, and the client gets OpenAI's error shape.
func TestClientBadRequests(t *testing.T) {
	big := `{"model":"m","stream":true,"messages":[{"role":"user","content":"` + strings.Repeat("x", 2048) + `"}]}`
	small := func(c *config.Config) { c.MaxRequestBytes = 1024 }
	// With one upstream every model goes to it; with two, a model that
	// matches neither is nobody's.
	onlyGPT := func(c *config.Config) {
		c.Upstreams[0].Models = config.Models("gpt-*")
		other := c.Upstreams[0]
		other.Name, other.Models = "other", config.Models("claude-*")
		c.Upstreams = append(c.Upstreams, other)
	}
	for _, tc := range []struct {
		name    string
		body    io.Reader
		mutate  func(*config.Config)
		status  int
		code    string
		message string
	}{
		{"oversized, with Content-Length", strings.NewReader(big), small, 413, "request_too_large", "1024"},
		// A reader of unknown length is sent chunked: the limit is met
		// while reading, not from a header.
		{"oversized, chunked", io.MultiReader(strings.NewReader(big)), small, 413, "request_too_large", "1024"},
		{"invalid JSON", strings.NewReader(`{"model":"m","messages":[`), nil, 400, "", "not valid JSON"},
		{"invalid JSON, chunked", io.MultiReader(strings.NewReader(`{"model":"m",,}`)), nil, 400, "", "not valid JSON"},
		{"unknown model", strings.NewReader(chatBody), onlyGPT, 404, "model_not_found", "`m` does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe := newFaultEnv(t, true, []upstreamtest.Round{{Events: hello}}, tc.mutate)
			req, err := http.NewRequest(http.MethodPost, fe.srv.URL+"/v1/chat/completions", tc.body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+faultClientKey)
			resp, err := fe.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if _, sized := tc.body.(*strings.Reader); !sized && req.ContentLength != 0 {
				t.Fatal("the request was not sent chunked")
			}
			got := readAll(t, resp)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, got)
			}
			checkError(t, got, tc.code, tc.message)
			if n := len(fe.up.Requests()); n != 0 {
				t.Errorf("the upstream saw %d requests, want none", n)
			}
			if n := len(fe.hooks.received()); n != 0 {
				t.Errorf("the webhook saw %d requests, want none", n)
			}
		})
	}
}
