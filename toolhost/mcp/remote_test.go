package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost"
)

// newPool is a pool whose guard allows the test servers' host exactly.
func newPool(t *testing.T, opts PoolOptions, allow ...string) *Pool {
	t.Helper()
	if len(allow) == 0 {
		allow = []string{"127.0.0.1"}
	}
	opts.Guard = toolhost.NewRemoteGuard(allow, nil)
	p := NewPool(opts)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func TestPoolListsAndCalls(t *testing.T) {
	hs := newHTTPServer(t)
	p := newPool(t, PoolOptions{})
	l, err := p.Get(context.Background(), hs.url, map[string]string{"Authorization": "Bearer s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	var names []string
	for _, tool := range l.Tools() {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "echo") || !strings.Contains(got, "add") {
		t.Fatalf("tools = %s", got)
	}
	if a, _ := hs.auth.Load().(string); a != "Bearer s3cret" {
		t.Errorf("Authorization = %q, want the request's", a)
	}
	exec := l.Executor("web", "add", time.Minute)
	out := exec.Execute(context.Background(), toolhost.Call{ID: "c1"}, []byte(`{"a":2,"b":3}`))
	if out.Err != nil || out.Content != `{"sum":5}` || !out.IsJSON {
		t.Fatalf("outcome = %+v", out)
	}
	if got := exec.(toolhost.SecretHolder).Secrets(); !strings.Contains(strings.Join(got, " "), "s3cret") {
		t.Errorf("secrets = %v, want the token among them", got)
	}
	out = l.Executor("web", "fail", time.Minute).Execute(context.Background(), toolhost.Call{ID: "c2"}, []byte(`{}`))
	if out.Err == nil || out.Err.Code != toolhost.CodeExecutionFailed || out.Err.Message != "disk full" {
		t.Errorf("isError outcome = %+v", out.Err)
	}
}

// A connection is kept per URL and credentials: the same pair gets the
// same connection, other credentials another.
func TestPoolKeepsPerCredentials(t *testing.T) {
	hs := newHTTPServer(t)
	p := newPool(t, PoolOptions{})
	get := func(token string) *Lease {
		l, err := p.Get(context.Background(), hs.url, map[string]string{"Authorization": "Bearer " + token})
		if err != nil {
			t.Fatal(err)
		}
		l.Release()
		return l
	}
	a1, a2, b := get("a"), get("a"), get("b")
	if a1.Remote != a2.Remote {
		t.Error("the same URL and credentials connected twice")
	}
	if a1.Remote == b.Remote {
		t.Error("other credentials shared a connection")
	}
	if n := p.Len(); n != 2 {
		t.Errorf("Len = %d, want 2", n)
	}
}

func TestPoolBoundAndExpiry(t *testing.T) {
	hs := newHTTPServer(t)
	var mu sync.Mutex
	now := time.Unix(1000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	p := newPool(t, PoolOptions{Max: 2, Idle: time.Minute, Now: clock})
	var held *Lease
	for i, tok := range []string{"a", "b", "c"} {
		l, err := p.Get(context.Background(), hs.url, map[string]string{"Authorization": tok})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			held = l // in use: never closed under its turn
			continue
		}
		l.Release()
	}
	if n := p.Len(); n != 2 {
		t.Fatalf("Len = %d after 3 servers with Max 2, want 2", n)
	}
	if !held.alive() {
		t.Fatal("a connection in use was closed")
	}
	held.Release()
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	p.expire()
	if n := p.Len(); n != 0 {
		t.Errorf("Len = %d after the idle time, want 0", n)
	}
}

// The guard applies at dial time: a glob never reaches loopback, also
// behind a name that resolves there (what a DNS rebinding does), and a
// redirect is not followed.
func TestPoolGuard(t *testing.T) {
	hs := newHTTPServer(t)
	port := hs.url[strings.LastIndex(hs.url, ":"):]
	redirect := httptest.NewServer(http.RedirectHandler(hs.url, http.StatusTemporaryRedirect))
	defer redirect.Close()
	tests := []struct {
		name, url string
		allow     []string
		want      string
	}{
		{"glob to loopback", hs.url, []string{"127.0.0.*"}, "refused: the MCP server's address is private"},
		{"name resolving inward", "http://localhost" + port, []string{"local*"}, "refused: the MCP server's address is private"},
		{"redirect", redirect.URL, []string{"127.0.0.1"}, "the server's answer was not one of an MCP server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPool(t, PoolOptions{}, tt.allow...)
			_, err := p.Get(context.Background(), tt.url, nil)
			var re *RemoteError
			if !errors.As(err, &re) || !strings.Contains(re.Error(), tt.want) {
				t.Fatalf("err = %v, want a RemoteError saying %q", err, tt.want)
			}
			u, _ := url.Parse(hs.url)
			if strings.Contains(re.Error(), u.Port()) {
				t.Errorf("the error names the port: %v", re)
			}
		})
	}
}

func TestPoolClosed(t *testing.T) {
	hs := newHTTPServer(t)
	p := newPool(t, PoolOptions{})
	l, err := p.Get(context.Background(), hs.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if l.alive() != true {
		t.Error("Close closed a connection still in use")
	}
	l.Release()
	if l.alive() {
		t.Error("a connection released after Close stayed open")
	}
	if _, err := p.Get(context.Background(), hs.url, nil); !errors.Is(err, ErrPoolClosed) {
		t.Errorf("Get after Close: %v", err)
	}
}
