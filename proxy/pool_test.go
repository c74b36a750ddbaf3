package proxy_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// poolEnv is a proxy whose upstream "pool" has a server per script, and
// whose upstream "backup", when backup is set, is pool's fallback.
func poolEnv(t *testing.T, backup *upstreamtest.Server, servers ...*upstreamtest.Server) *env {
	t.Helper()
	cfg := config.Default()
	u := config.DefaultUpstreamEntry()
	u.Name, u.Models = "pool", config.Models("*")
	for _, s := range servers {
		u.BaseURLs = append(u.BaseURLs, s.URL)
		t.Cleanup(s.Close)
	}
	cfg.Upstreams = []config.Upstream{u}
	if backup != nil {
		t.Cleanup(backup.Close)
		b := config.DefaultUpstreamEntry()
		b.Name, b.BaseURL, b.Models = "backup", backup.URL, config.Models("backup-only")
		cfg.Upstreams[0].Fallbacks = []string{"backup"}
		cfg.Upstreams = append(cfg.Upstreams, b)
	}
	e := serve(t, &cfg, upstreamtest.New(), proxy.Options{})
	recordSleeps(e)
	return e
}

func sayHello(upstreamtest.Request) upstreamtest.Round { return okRound }

// chats sends n streaming turns and checks each read "Hello" to its
// [DONE], with no error event.
func chats(t *testing.T, e *env, n int) {
	t.Helper()
	for i := range n {
		resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody)
		body := readAll(t, resp)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"Hello"`) || !strings.HasSuffix(body, "data: [DONE]\n\n") || strings.Contains(body, `"error"`) {
			t.Fatalf("turn %d: %d %s", i+1, resp.StatusCode, body)
		}
	}
}

func chatRequests(s *upstreamtest.Server) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Path == "/v1/chat/completions" {
			n++
		}
	}
	return n
}

// TestPoolServerKilled: a server of the pool killed mid-run loses its
// rounds to the other, with no client error and no request sent twice.
func TestPoolServerKilled(t *testing.T) {
	a, b := upstreamtest.NewFunc(sayHello), upstreamtest.NewFunc(sayHello)
	e := poolEnv(t, nil, a, b)
	chats(t, e, 4)
	if chatRequests(a) == 0 || chatRequests(b) == 0 {
		t.Fatalf("the pool did not share the rounds: %d and %d", chatRequests(a), chatRequests(b))
	}
	before := chatRequests(a)
	a.Close()
	chats(t, e, 4)
	if got := chatRequests(a); got != before {
		t.Errorf("the killed server got %d requests more", got-before)
	}
	if got := chatRequests(a) + chatRequests(b); got != 8 {
		t.Errorf("%d requests for 8 rounds", got)
	}
}

// TestPoolServerBusy: a server answering 503 before any body passes the
// round on to the other.
func TestPoolServerBusy(t *testing.T) {
	a := upstreamtest.NewFunc(func(upstreamtest.Request) upstreamtest.Round { return statusRound(503) })
	b := upstreamtest.NewFunc(sayHello)
	e := poolEnv(t, nil, a, b)
	chats(t, e, 4)
	if got := chatRequests(b); got != 4 {
		t.Errorf("the healthy server served %d rounds of 4", got)
	}
	if chatRequests(a) == 0 {
		t.Error("no round was tried on the busy server first: the test proves nothing")
	}
}

// TestPoolStreamCut: a server that cuts its stream after the first event
// has started: the client gets the error event, and no other server is
// asked for the round.
func TestPoolStreamCut(t *testing.T) {
	cut := okRound
	cut.CutAfter = 1
	a := upstreamtest.NewFunc(func(upstreamtest.Request) upstreamtest.Round { return cut })
	b := upstreamtest.NewFunc(sayHello)
	e := poolEnv(t, nil, a, b) // the first round goes to the first server
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody)
	body := readAll(t, resp)
	if !strings.Contains(body, `"error"`) || strings.Contains(body, "[DONE]") {
		t.Fatalf("a cut stream reads as complete: %s", body)
	}
	if chatRequests(a) != 1 || chatRequests(b) != 0 {
		t.Errorf("requests %d and %d, want 1 and 0", chatRequests(a), chatRequests(b))
	}
}

// TestPoolFallback: with every server of the pool down, the fallback
// upstream takes the round, and the client reads upstream.fallback.
func TestPoolFallback(t *testing.T) {
	a, b := upstreamtest.NewFunc(sayHello), upstreamtest.NewFunc(sayHello)
	a.Close()
	b.Close()
	backup := upstreamtest.NewFunc(sayHello)
	e := poolEnv(t, backup, a, b)
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody)
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"Hello"`) || !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if !strings.Contains(body, `"event":"upstream.fallback"`) || !strings.Contains(body, `"from":"pool","to":"backup"`) {
		t.Errorf("no upstream.fallback event: %s", body)
	}
	if got := chatRequests(backup); got != 1 {
		t.Errorf("the fallback got %d requests", got)
	}
	reqs := backup.Requests()
	if m := string(reqs[0].Body); !strings.Contains(m, `"model":"m"`) {
		t.Errorf("the fallback was asked %s", m)
	}
}
