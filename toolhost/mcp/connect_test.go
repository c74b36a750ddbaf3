package mcp

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/config"
)

// TestFirstConnectTimeout: a server's first start may take longer than a
// reconnect may (npx downloads the package first), so it is not cut at
// ConnectTimeout; once the server has been up, a reconnect that gets no
// answer is given up after ConnectTimeout and tried again.
func TestFirstConnectTimeout(t *testing.T) {
	const (
		connect   = 100 * time.Millisecond
		firstTook = 10 * connect // the first initialize: a package download
	)
	hs := newHTTPServer(t)
	var (
		inits atomic.Int32
		hang  atomic.Bool // initialize never answers
	)
	release := make(chan struct{})
	hs.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "initialize" {
				wait := time.Duration(0)
				if inits.Add(1) == 1 {
					wait = firstTook
				} else if hang.Load() {
					wait = time.Hour
				}
				select {
				case <-time.After(wait):
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-release:
					return nil, context.Canceled
				}
			}
			return next(ctx, method, req)
		}
	})
	f := newFixtureWith(t, Options{ConnectTimeout: connect, FirstConnectTimeout: time.Minute})
	t.Cleanup(func() { close(release) }) // before the fixture's Close waits
	f.m.Apply([]config.MCPServer{{Name: "web", URL: hs.url, Tools: []string{"echo"}}}, time.Minute)
	f.waitUp(t, "web", 1)
	if n := inits.Load(); n != 1 {
		t.Fatalf("the first start was tried %d times, want once: it took %s, within the first-connect timeout", n, firstTook)
	}

	// The server drops; when it answers HTTP again its initialize hangs.
	hang.Store(true)
	hs.down.Store(true)
	f.call(context.Background(), "echo", `{"text":"x"}`)
	waitFor(t, "the server down", func() bool { s, _ := f.state("web"); return s.Status == StatusDown })
	hs.down.Store(false)
	waitFor(t, "reconnects given up after ConnectTimeout, three times", func() bool { return inits.Load() >= 4 })
	waitFor(t, "the timeout in the state", func() bool {
		s, _ := f.state("web")
		return s.Status == StatusDown && strings.Contains(s.Error, "no answer within 100ms")
	})
}
