package proxy_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

type readiness struct {
	Status            string   `json:"status"`
	DegradedUpstreams []string `json:"degraded_upstreams"`
	Upstreams         []struct {
		Name      string `json:"name"`
		Servers   int    `json:"servers"`
		ServersUp int    `json:"servers_up"`
	} `json:"upstreams"`
}

// readyzUntil reads /readyz until cond holds of it (the health checks run
// on their own clock; the first runs at start) or 5s passed.
func readyzUntil(t *testing.T, e *env, cond func(int, readiness) bool) (int, readiness) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp := e.do(t, http.MethodGet, "/readyz", "")
		var r readiness
		if err := json.Unmarshal([]byte(readAll(t, resp)), &r); err != nil {
			t.Fatal(err)
		}
		if cond(resp.StatusCode, r) || time.Now().After(deadline) {
			return resp.StatusCode, r
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestReadyzUpstreams: /readyz names an upstream with no server up as
// degraded — 200 while another upstream is up, 503 when none is — and
// toolstream_upstream_up has each server.
func TestReadyzUpstreams(t *testing.T) {
	live, dead := upstreamtest.New(), upstreamtest.New()
	dead.Close() // nothing listens: the first check is refused
	cfg := config.Default()
	a := config.DefaultUpstreamEntry()
	a.Name, a.BaseURL, a.Models = "live", live.URL, config.Models("a*")
	b := config.DefaultUpstreamEntry()
	b.Name, b.BaseURL, b.Models = "local", dead.URL, config.Models("b*")
	cfg.Upstreams = []config.Upstream{a, b}
	e := serve(t, &cfg, live, proxy.Options{})

	// Each upstream is checked on its own: wait for both first checks.
	code, r := readyzUntil(t, e, func(_ int, r readiness) bool { return len(r.DegradedUpstreams) > 0 && live.HealthChecks() > 0 })
	if code != http.StatusOK || r.Status != "degraded" || len(r.DegradedUpstreams) != 1 || r.DegradedUpstreams[0] != "local" {
		t.Errorf("/readyz %d %+v, want 200 degraded naming local", code, r)
	}
	metrics := readAll(t, e.do(t, http.MethodGet, "/metrics", ""))
	for _, want := range []string{
		`toolstream_upstream_up{server="` + live.URL + `",upstream="live"} 1`,
		`toolstream_upstream_up{server="` + dead.URL + `",upstream="local"} 0`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if live.HealthChecks() == 0 {
		t.Error("the live upstream was never checked")
	}
}

// TestReadyzNoUpstream: with its only upstream down the proxy is not
// ready (503), and says which upstream.
func TestReadyzNoUpstream(t *testing.T) {
	e := newEnv(t, nil, nil)
	e.up.Close()
	e2 := serve(t, func() *config.Config {
		cfg := config.Default()
		u := config.DefaultUpstreamEntry()
		u.Name, u.BaseURL, u.Models = "ollama", e.up.URL, config.Models("*")
		cfg.Upstreams = []config.Upstream{u}
		return &cfg
	}(), upstreamtest.New(), proxy.Options{})
	code, r := readyzUntil(t, e2, func(c int, _ readiness) bool { return c == http.StatusServiceUnavailable })
	if code != http.StatusServiceUnavailable || r.Status != "degraded" || len(r.DegradedUpstreams) != 1 || r.DegradedUpstreams[0] != "ollama" {
		t.Errorf("/readyz %d %+v, want 503 degraded naming ollama", code, r)
	}
}
