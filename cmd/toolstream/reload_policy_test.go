package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestServeReloadPolicies: SIGHUP puts a file's policies in force for the
// next call; a file whose rule does not compile is refused, its problem
// logged at file:line:col, and the running rules stay.
func TestServeReloadPolicies(t *testing.T) {
	var hits atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"time":"noon"}`))
	}))
	t.Cleanup(hook.Close)
	// The model calls get_time until it reads a result, then answers.
	up := upstreamtest.NewFunc(func(r upstreamtest.Request) upstreamtest.Round {
		if strings.Contains(string(r.Body), `"role":"tool"`) {
			return upstreamtest.Round{Events: upstreamtest.Text("a", "m", "ok")}
		}
		return upstreamtest.Round{Events: []string{upstreamtest.Chunk("c", "m",
			`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_time","arguments":"{}"}}]}`, "tool_calls")}}
	})
	t.Cleanup(up.Close)
	tools := "tools:\n  - name: get_time\n    webhook: {url: \"" + hook.URL + "/time\"}\n"
	file := filepath.Join(t.TempDir(), "toolstream.yaml")
	writeFile(t, file, serveConfig(up.URL, tools))
	p := startServe(t, file)

	// turn runs one turn and returns what the model read of its call.
	turn := func(name string) string {
		t.Helper()
		if got := p.open(t, name).rest(t); !done(got) {
			t.Fatalf("turn %s: %q", name, got)
		}
		reqs := up.Requests()
		return string(reqs[len(reqs)-1].Body)
	}
	if fed := turn("before"); strings.Contains(fed, "POLICY_DENIED") || hits.Load() != 1 {
		t.Fatalf("without policies: hits %d, model read %s", hits.Load(), fed)
	}

	writeFile(t, file, serveConfig(up.URL, tools+`policies:
  - name: lunch
    tools: [get_time]
    when: 'source == "chat"'
    action: deny
    message: closed for lunch
`))
	p.signal(t, syscall.SIGHUP)
	p.log.wait(t, regexp.MustCompile(`msg="config reloaded".* policies=1`))
	if fed := turn("after"); !strings.Contains(fed, "POLICY_DENIED") || !strings.Contains(fed, "closed for lunch") || hits.Load() != 1 {
		t.Errorf("after the reload: hits %d, model read %s", hits.Load(), fed)
	}

	writeFile(t, file, serveConfig(up.URL, tools+`policies:
  - name: lunch
    action: deny
    when: 'source = "chat"'
`))
	p.signal(t, syscall.SIGHUP)
	p.log.wait(t, regexp.MustCompile(`problem="[^"]*toolstream\.yaml:\d+:\d+: policies\[0\]\.when: CEL:`))
	p.log.wait(t, regexp.MustCompile(`config not reloaded`))
	if fed := turn("refused"); !strings.Contains(fed, "closed for lunch") || hits.Load() != 1 {
		t.Errorf("a refused reload changed the rules: hits %d, model read %s", hits.Load(), fed)
	}
	p.signal(t, syscall.SIGTERM)
	if code := p.exit(t); code != 0 {
		t.Errorf("exit %d after SIGTERM\n%s", code, p.log)
	}
}
