package agents_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/examples/internal/exampletest"
)

// clientKey is the key every agent sends; it is no secret (loopback, a
// namespace of its own) and is left out of the recorded fixtures anyway.
const clientKey = "sk-agents-test-0123456789"

// proxy is one toolstream serve process.
type proxy struct {
	// URL is its base URL, without /v1.
	URL string
	log *exampletest.SyncBuffer
}

// startServe runs the toolstream binary with config (toolstream.yaml or
// one of testdata), in front of the model at modelURL and with the
// webhook tool get_token at tokenURL, and waits until it serves. The
// process is stopped when t ends.
func startServe(t *testing.T, config, modelURL, tokenURL string, extra ...string) *proxy {
	t.Helper()
	addr := exampletest.FreeAddr(t)
	env := append([]string{
		"PATH=/usr/bin:/bin",
		"TOOLSTREAM_LISTEN=" + addr,
		"TOOLSTREAM_KEY=" + clientKey,
		"MODEL_URL=" + modelURL,
		"TOKEN_URL=" + tokenURL,
	}, extra...)
	p := &proxy{URL: "http://" + addr}
	p.log = startToolstream(t, env, p.URL+"/readyz", "serve", config)
	return p
}

// startToolstream runs the toolstream binary with args and env until t
// ends, waits until ready answers 200, and returns what it prints.
func startToolstream(t *testing.T, env []string, ready string, args ...string) *exampletest.SyncBuffer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, serveBin, args...)
	cmd.Env = env
	log := &exampletest.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		if t.Failed() {
			t.Logf("toolstream %s printed:\n%s", args[0], log)
		}
	})
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-done:
			t.Fatalf("toolstream %s stopped before serving:\n%s", args[0], log)
		default:
		}
		resp, err := client.Get(ready)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return log
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("toolstream %s: %s not ready after 30s: %v\n%s", args[0], ready, err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tokenTool is the webhook behind the server tool get_token (and any
// other the config points at TOKEN_URL): it answers every call with its
// token and keeps the calls' bodies.
type tokenTool struct {
	URL   string
	Token string
	mu    sync.Mutex
	calls []string
}

func newTokenTool(t *testing.T, token string) *tokenTool {
	tt := &tokenTool{Token: token}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		tt.mu.Lock()
		tt.calls = append(tt.calls, string(body))
		tt.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"token":"`+tt.Token+`"}`)
	}))
	t.Cleanup(srv.Close)
	tt.URL = srv.URL + "/token"
	return tt
}

// received returns the bodies of the calls so far.
func (tt *tokenTool) received() []string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return append([]string(nil), tt.calls...)
}

// tapped is one request an agent sent to serve, as the tap saw it.
type tapped struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// tap is a reverse proxy in front of serve that keeps every request the
// agent sends (the fixtures are made from them), and passes streams on
// as they come.
type tap struct {
	URL string
	mu  sync.Mutex
	got []tapped
}

func newTap(t *testing.T, target string) *tap {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	tp := &tap{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		tp.mu.Lock()
		tp.got = append(tp.got, tapped{r.Method, r.URL.Path, r.Header.Clone(), body})
		tp.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	tp.URL = srv.URL
	return tp
}

// requests returns what the tap saw so far.
func (tp *tap) requests() []tapped {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]tapped(nil), tp.got...)
}
