package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

func TestMain(m *testing.M) {
	// Without -v, go test shows no skip's reason: say once how to run it.
	if os.Getenv(envEverything) == "" && os.Getenv("CI") == "" {
		fmt.Println("proxy: the turns through the reference MCP server are skipped: " + envEverything + " is not set (bash .ci/run installs the server and sets it)")
	}
	// pgtest stops the PostgreSQL cluster a test started, if any.
	goleak.VerifyTestMain(pgtest.Wrap(m))
}

// env is a proxy in front of one scripted upstream, both on loopback.
type env struct {
	up     *upstreamtest.Server
	srv    *httptest.Server
	proxy  *proxy.Server
	client *http.Client
}

// newEnv starts a scripted upstream named "up" routed for every model, and
// the proxy in front of it. mutate may adjust the config before the proxy
// is built.
func newEnv(t *testing.T, rounds []upstreamtest.Round, mutate func(*config.Config)) *env {
	t.Helper()
	up := upstreamtest.New(rounds...)
	cfg := config.Default()
	u := config.DefaultUpstreamEntry()
	u.Name = "up"
	u.BaseURL = up.URL
	u.APIKey = "upstream-key"
	u.Models = config.Models("*")
	cfg.Upstreams = []config.Upstream{u}
	if mutate != nil {
		mutate(&cfg)
	}
	return serve(t, &cfg, up, proxy.Options{
		NewID: func(prefix string) string { return prefix + "TESTID" },
		Now:   func() time.Time { return time.Unix(1800000000, 0) },
	})
}

// serve builds the proxy and serves it on loopback in front of up; both
// are shut down, and every idle connection closed, when the test ends.
func serve(t *testing.T, cfg *config.Config, up *upstreamtest.Server, opts proxy.Options) *env {
	t.Helper()
	p, err := proxy.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	// Served as `serve` serves it (proxy.Listener): streams leave their
	// handlers and their connections come back.
	srv := httptest.NewUnstartedServer(p)
	srv.Listener = proxy.Listener(srv.Config, srv.Listener)
	srv.Start()
	e := &env{up: up, srv: srv, proxy: p, client: &http.Client{Transport: &http.Transport{}}}
	t.Cleanup(func() {
		e.client.CloseIdleConnections()
		srv.CloseClientConnections()
		srv.Close()
		up.Close()
		p.Close()
	})
	return e
}

// do sends a request to the proxy; headers come as "Name: value" pairs.
func (e *env) do(t *testing.T, method, path, body string, headers ...string) *http.Response {
	t.Helper()
	return e.doCtx(t, context.Background(), method, path, body, headers...)
}

func (e *env) doCtx(t *testing.T, ctx context.Context, method, path, body string, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(k, strings.TrimSpace(v))
	}
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// readAll reads and closes a response body.
func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return string(b)
}

// sseData splits an SSE body into its data payloads and reports whether a
// comment or an event other than data appeared.
func sseData(t *testing.T, body string) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

// events builds a raw SSE body from data payloads, [DONE] included.
func events(data ...string) string {
	var b bytes.Buffer
	for _, d := range data {
		b.WriteString("data: " + d + "\n\n")
	}
	return b.String()
}

const chatBody = `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`

func sha256hex(s string) string {
	d := sha256.Sum256([]byte(s))
	return hex.EncodeToString(d[:])
}

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func mustRequest(t *testing.T, method, path string) *http.Request {
	t.Helper()
	return httptest.NewRequest(method, path, nil)
}
