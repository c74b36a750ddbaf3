package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// heard is a call's listener that keeps the progress it hears.
type heard struct {
	mu      sync.Mutex
	updates []toolhost.ProgressUpdate
	got     chan struct{}
}

func (h *heard) ApprovalRequested(toolhost.Call, store.Action) {}
func (h *heard) ApprovalResolved(toolhost.Call, store.Action)  {}
func (h *heard) ToolProgress(_ toolhost.Call, u toolhost.ProgressUpdate) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.updates = append(h.updates, u)
	h.got <- struct{}{}
}

// TestCallProgress: a call carries a progress token, and the server's
// notifications/progress with it reach the call's listener, in order;
// ones with another token do not. The tool answers only once the
// listener heard each update: the SDK may deliver a notification after the
// result (see server.progress), which is not what this test is about.
func TestCallProgress(t *testing.T) {
	log := &heard{got: make(chan struct{}, 8)}
	srv := mcp.NewServer(&mcp.Implementation{Name: "progress-test", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "steps", InputSchema: objectSchema(`{}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			token := req.Params.GetProgressToken()
			if token == nil {
				return textResult("no progress token"), nil
			}
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: "someone-else", Progress: 7})
			for i := 1; i <= 3; i++ {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 3, Message: "step"}); err != nil {
					return nil, err
				}
				select {
				case <-log.got:
				case <-time.After(10 * time.Second):
					return textResult("progress not heard"), nil
				}
			}
			return textResult("done"), nil
		})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(handler)
	t.Cleanup(ts.Close)

	f := newFixture(t)
	f.m.Apply([]config.MCPServer{{Name: "p", URL: ts.URL, Prefix: "p_"}}, time.Minute)
	f.waitUp(t, "p", 1)
	res, err := f.host.Execute(t.Context(), toolhost.Call{ID: "call_p", Name: "p_steps", Arguments: json.RawMessage(`{}`), Progress: log})
	if err != nil || res.Content != "done" {
		t.Fatalf("p_steps = %+v, %v", res, err)
	}
	// The notifications were sent before the result, on the same stream.
	log.mu.Lock()
	defer log.mu.Unlock()
	want := []toolhost.ProgressUpdate{{Progress: 1, Total: 3, Message: "step"}, {Progress: 2, Total: 3, Message: "step"}, {Progress: 3, Total: 3, Message: "step"}}
	if diff := cmp.Diff(want, log.updates); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}

// TestEverythingProgress: the reference server (over stdio, from npm; see
// TestEverythingServer) reports each step of its long-running operation to
// the call, as it sends progress only to requests with a token.
func TestEverythingProgress(t *testing.T) {
	script := os.Getenv(envEverything)
	if script == "" {
		if os.Getenv("CI") != "" {
			t.Fatal(envEverything + " is not set: run .ci/run")
		}
		t.Skip(envEverything + " is not set: run .ci/run")
	}
	f := newFixture(t)
	f.m.Apply([]config.MCPServer{{
		Name: "everything", Command: "node", Args: []string{script, "stdio"},
		Prefix: "ev_", Tools: []string{"trigger-long-running-operation"},
	}}, time.Minute)
	f.waitUp(t, "everything", 1)
	log := &heard{got: make(chan struct{}, 8)}
	res, err := f.host.Execute(t.Context(), toolhost.Call{ID: "call_long", Name: "ev_trigger-long-running-operation",
		Arguments: json.RawMessage(`{"duration": 1, "steps": 3}`), Progress: log})
	if err != nil || res.Err != nil || !strings.Contains(res.Content, "Long running operation completed") {
		t.Fatalf("long-running operation = %+v, %v", res, err)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	// The last step may lose its race with the result (see server.progress).
	if len(log.updates) < 2 {
		t.Fatalf("progress %+v, want at least the first two of 3 steps", log.updates)
	}
	for i, u := range log.updates {
		if u.Progress != float64(i+1) || u.Total != 3 {
			t.Errorf("update %d = %+v, want progress %d of 3", i, u, i+1)
		}
	}
}
