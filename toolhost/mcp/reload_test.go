package mcp

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// TestApplyWaitsForCallsInFlight: a reload that changes a server's entry
// takes the server's tools away at once, but stopping the server waits
// for the call running on it, which is not cut and gets its answer; then
// the new server starts and Apply returns (docs/operations.md, MCP
// servers on SIGHUP).
func TestApplyWaitsForCallsInFlight(t *testing.T) {
	hs := newHTTPServer(t)
	entered, release := make(chan struct{}), make(chan struct{})
	hs.srv.AddTool(&mcp.Tool{Name: "hold", InputSchema: objectSchema(`{}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(entered)
			<-release
			return textResult("released"), nil
		})
	f := newFixture(t)
	entry := config.MCPServer{Name: "web", URL: hs.url, Tools: []string{"hold"}}
	f.m.Apply([]config.MCPServer{entry}, time.Minute)
	f.waitUp(t, "web", 1)

	done := make(chan toolhost.Result, 1)
	go func() {
		res, _ := f.call(context.Background(), "hold", `{}`)
		done <- res
	}()
	<-entered

	entry.Prefix = "w_" // changed: the server restarts
	applied := make(chan struct{})
	go func() {
		f.m.Apply([]config.MCPServer{entry}, time.Minute)
		close(applied)
	}()
	waitFor(t, "the old server's tool to leave", func() bool { _, ok := f.host.Lookup("hold"); return !ok })
	select {
	case <-applied:
		t.Error("Apply returned while a call was running on the server it stopped")
	case res := <-done:
		t.Errorf("the reload cut the call in flight: %+v", res)
	default:
	}

	close(release)
	if res := <-done; res.Err != nil || res.Content != "released" {
		t.Errorf("call in flight = %+v; want its own answer", res)
	}
	<-applied
	f.waitUp(t, "web", 1)
	if _, ok := f.host.Lookup("w_hold"); !ok {
		t.Error("the restarted server's tool is not registered under its new prefix")
	}
}
