package proxy_test

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// upstreamConfig is the default config with one upstream "up" at url
// serving every model.
func upstreamConfig(url string) *config.Config {
	cfg := config.Default()
	u := config.DefaultUpstreamEntry()
	u.Name, u.BaseURL, u.Models = "up", url, []string{"*"}
	cfg.Upstreams = []config.Upstream{u}
	return &cfg
}

// readEvents reads data lines from an SSE body until n have arrived.
func readEvents(t *testing.T, br *bufio.Reader, n int) []string {
	t.Helper()
	var got []string
	for len(got) < n {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d events: %v", len(got), err)
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			got = append(got, strings.TrimSpace(d))
		}
	}
	return got
}

// TestReload: a reload applies to requests that arrive after it — another
// upstream, client keys — while a stream that started before finishes on
// the upstream it started with, [DONE] included.
func TestReload(t *testing.T) {
	gate := make(chan struct{})
	old := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("o1", "m", "old ", "answer"), Gate: gate, GateAfter: 2})
	e := serve(t, upstreamConfig(old.URL), old, proxy.Options{})
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	readEvents(t, br, 2)

	next := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("n1", "m", "new answer")})
	defer next.Close()
	cfg := upstreamConfig(next.URL)
	cfg.Auth.Keys = []config.Secret{"k2"}
	if err := e.proxy.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	r := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody)
	if readAll(t, r); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the new key: status %d, want 401", r.StatusCode)
	}
	body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", chatBody, "Authorization: Bearer k2"))
	if got := joinedContent(t, body); got != "new answer" {
		t.Errorf("after the reload the client read %q from %s", got, body)
	}

	close(gate)
	rest, err := readRest(br)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(rest, "data: [DONE]\n\n") || !strings.Contains(rest, `"content":"answer"`) {
		t.Errorf("the stream open across the reload did not finish on its upstream:\n%s", rest)
	}
	if n, m := len(old.Requests()), len(next.Requests()); n != 1 || m != 1 {
		t.Errorf("old upstream saw %d requests, new one %d; want 1 and 1", n, m)
	}
}

// TestReloadRefused: a configuration the proxy cannot build changes
// nothing.
func TestReloadRefused(t *testing.T) {
	up := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "still here")})
	e := serve(t, upstreamConfig(up.URL), up, proxy.Options{})
	bad := upstreamConfig(up.URL)
	bad.DefaultUpstream = "nowhere"
	if err := e.proxy.Reload(bad); err == nil {
		t.Fatal("Reload accepted a default_upstream naming no upstream")
	}
	body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", chatBody))
	if got := joinedContent(t, body); got != "still here" {
		t.Errorf("after a refused reload the client read %q", got)
	}
}

func readRest(br *bufio.Reader) (string, error) {
	var b strings.Builder
	_, err := br.WriteTo(&b)
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return b.String(), err
}
