package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// httpServer is an in-process streamable-HTTP MCP server built with the
// SDK, with tools for every result shape.
type httpServer struct {
	srv     *mcp.Server
	url     string
	entered chan struct{} // the wait tool is running
	// handlerCancelled: the wait tool's context ended on the server.
	handlerCancelled chan struct{}
	// cancelNotes counts notifications/cancelled the server received.
	cancelNotes atomic.Int32
	auth        atomic.Value // last Authorization header seen
	// down makes the endpoint answer 503 to everything.
	down atomic.Bool
	// ttl is the ttlMs of its list results (stateless revision).
	ttl atomic.Int64
	// methods counts the POSTs by their Mcp-Method header; names records
	// the Mcp-Name header of each tools/call.
	// regions records the Mcp-Param-Region header of each call.
	mu      sync.Mutex
	methods map[string]int
	names   []string
	regions []string
}

// revisions are the MCP revisions every HTTP test runs in: the
// stateless one, and the last with sessions.
var revisions = []string{"2026-07-28", "2025-11-25"}

// newHTTPServer is a server with sessions (2025-11-25 and older).
func newHTTPServer(t *testing.T) *httpServer { return newHTTPServerIn(t, "2025-11-25") }

// newHTTPServerIn is a server of revision: from 2026-07-28 stateless (the
// SDK's stateless handler, a request's context ending with its HTTP
// request), else with sessions.
func newHTTPServerIn(t *testing.T, revision string) *httpServer {
	t.Helper()
	h := &httpServer{entered: make(chan struct{}, 1), handlerCancelled: make(chan struct{}, 1), methods: map[string]int{}}
	h.srv = mcp.NewServer(&mcp.Implementation{Name: "http-test", Version: "1"}, &mcp.ServerOptions{
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.TTLMs = int(h.ttl.Load()) },
	})
	h.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/cancelled" {
				h.cancelNotes.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	h.srv.AddTool(&mcp.Tool{Name: "echo", Description: "Echoes text.", InputSchema: objectSchema(`{"text":{"type":"string"}}`, "text")},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}, &mcp.TextContent{Text: "done"}}}, nil
		})
	h.srv.AddTool(&mcp.Tool{Name: "add", InputSchema: objectSchema(`{"a":{"type":"integer"},"b":{"type":"integer"}}`, "a", "b")},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ A, B int }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &mcp.CallToolResult{
				Content:           []mcp.Content{&mcp.TextContent{Text: "the sum"}},
				StructuredContent: map[string]int{"sum": in.A + in.B},
			}, nil
		})
	h.srv.AddTool(&mcp.Tool{Name: "fail", InputSchema: objectSchema(`{}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "disk full"}}}, nil
		})
	h.srv.AddTool(&mcp.Tool{Name: "picture", InputSchema: objectSchema(`{}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "a chart"},
				&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 1234)},
				&mcp.ResourceLink{URI: "file:///r.txt", Name: "r.txt", MIMEType: "text/plain"},
			}}, nil
		})
	h.srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: objectSchema(`{}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			h.entered <- struct{}{}
			<-ctx.Done()
			h.handlerCancelled <- struct{}{}
			return textResult("cancelled"), nil
		})
	h.srv.AddTool(&mcp.Tool{Name: "hidden_admin", InputSchema: objectSchema(`{}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return textResult("no"), nil })
	// A schema our validator refuses (a $ref to nowhere): skipped alone.
	h.srv.AddTool(&mcp.Tool{Name: "broken", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/$defs/nowhere"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return textResult("no"), nil })
	// Its prefixed name is a runtime tool's.
	h.srv.AddTool(&mcp.Tool{Name: "taken", InputSchema: objectSchema(`{}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return textResult("no"), nil })

	opts := &mcp.StreamableHTTPOptions{}
	if revision >= statelessRevision {
		opts = &mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true}
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return h.srv }, opts)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.auth.Store(r.Header.Get("Authorization"))
		h.mu.Lock()
		h.methods[r.Header.Get("Mcp-Method")]++
		if r.Header.Get("Mcp-Method") == "tools/call" {
			h.names = append(h.names, r.Header.Get("Mcp-Name"))
			h.regions = append(h.regions, r.Header.Get("Mcp-Param-Region"))
		}
		h.mu.Unlock()
		if h.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.Close()
		// Sessions our client could not end (the endpoint was down when
		// it left) live on in the SDK server until closed.
		for ss := range h.srv.Sessions() {
			_ = ss.Close()
		}
	})
	h.url = ts.URL
	return h
}

// requests is how many POSTs came with Mcp-Method method.
func (h *httpServer) requests(method string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.methods[method]
}

// noopExec is a runtime tool's executor that is never called.
type noopExec struct{}

func (noopExec) Execute(context.Context, toolhost.Call, json.RawMessage) toolhost.Outcome {
	return toolhost.Outcome{Content: "runtime"}
}

func TestHTTPServerTools(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) { hTTPServerTools(t, rev) })
	}
}

func hTTPServerTools(t *testing.T, rev string) {
	hs := newHTTPServerIn(t, rev)
	f := newFixture(t)
	if err := f.host.Register(toolhost.Tool{Name: "h_taken", Source: toolhost.SourceRuntime}, noopExec{}); err != nil {
		t.Fatal(err)
	}
	no := false
	f.m.Apply([]config.MCPServer{{
		Name: "web", URL: hs.url, Prefix: "h_", Exclude: []string{"hidden_*"},
		Headers:    map[string]config.Secret{"Authorization": "Bearer t0ken"},
		Approval:   "never",
		Idempotent: true,
		Overrides:  map[string]config.MCPOverride{"h_echo": {Idempotent: &no, Redact: []string{"text"}}},
	}}, time.Minute)
	// echo add fail picture wait: hidden_admin excluded, broken and taken skipped.
	f.waitUp(t, "web", 5)

	got := mcpTools(f.host)
	slices.Sort(got)
	if want := []string{"h_add", "h_echo", "h_fail", "h_picture", "h_wait"}; !slices.Equal(got, want) {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	if a, _ := hs.auth.Load().(string); a != "Bearer t0ken" {
		t.Errorf("Authorization header = %q", a)
	}
	// Every request of the stateless revision names its method in
	// Mcp-Method; a session's do not.
	if stateless := hs.requests("") == 0; stateless != (rev >= statelessRevision) {
		t.Errorf("revision %s: %d requests without Mcp-Method", rev, hs.requests(""))
	}
	echo, _ := f.host.Lookup("h_echo")
	if echo.Source != "mcp:web" || echo.Description != "Echoes text." || echo.Idempotent || !slices.Equal(echo.Redact, []string{"text"}) {
		t.Errorf("h_echo = %+v", echo)
	}
	if add, _ := f.host.Lookup("h_add"); !add.Idempotent || !strings.Contains(string(add.Parameters), `"integer"`) {
		t.Errorf("h_add = %+v", add)
	}
	for _, want := range []string{`tool=h_broken`, `tool=h_taken reason="the name is taken" by=runtime`} {
		if !strings.Contains(f.log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, f.log.String())
		}
	}

	ctx := context.Background()
	for _, tc := range []struct {
		tool, args string
		content    string
		isJSON     bool
		code, msg  string
	}{
		{tool: "h_echo", args: `{"text":"hi"}`, content: "echo: hi\ndone"},
		// Text-mode arguments arrive as strings; our coercion makes them integers.
		{tool: "h_add", args: `{"a":"2","b":3}`, content: `{"sum":5}`, isJSON: true},
		{tool: "h_fail", args: `{}`, code: toolhost.CodeExecutionFailed, msg: "disk full"},
		{tool: "h_picture", args: `{}`, content: "a chart\n[image: image/png, 1234 bytes]\n[resource link: file:///r.txt (r.txt), text/plain]"},
		{tool: "h_echo", args: `{}`, code: toolhost.CodeMissingParameter},
	} {
		res, err := f.call(ctx, tc.tool, tc.args)
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		if tc.code != "" {
			if res.Err == nil || res.Err.Code != tc.code || !strings.Contains(res.Err.Message, tc.msg) {
				t.Errorf("%s(%s) = %+v, want %s %q", tc.tool, tc.args, res, tc.code, tc.msg)
			}
			continue
		}
		if res.Err != nil || res.Content != tc.content || res.IsJSON != tc.isJSON {
			t.Errorf("%s(%s) = %q json=%v err=%v, want %q json=%v", tc.tool, tc.args, res.Content, res.IsJSON, res.Err, tc.content, tc.isJSON)
		}
	}
	// The stateless revision names each call in the Mcp-Name header.
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if rev >= statelessRevision && !slices.Equal(hs.names, []string{"echo", "add", "fail", "picture"}) {
		t.Errorf("Mcp-Name headers %q", hs.names)
	}
}

func TestHTTPListChanged(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) { hTTPListChanged(t, rev) })
	}
}

func hTTPListChanged(t *testing.T, rev string) {
	hs := newHTTPServerIn(t, rev)
	f := newFixture(t)
	f.m.Apply([]config.MCPServer{{Name: "web", URL: hs.url, Tools: []string{"echo", "late*"}}}, time.Minute)
	f.waitUp(t, "web", 1)

	hs.srv.AddTool(&mcp.Tool{Name: "later", InputSchema: objectSchema(`{}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult("here"), nil
		})
	waitFor(t, "the added tool", func() bool { _, ok := f.host.Lookup("later"); return ok })
	if res, _ := f.call(context.Background(), "later", `{}`); res.Content != "here" {
		t.Errorf("later = %+v", res)
	}
	hs.srv.RemoveTools("echo")
	waitFor(t, "the removed tool to leave", func() bool { _, ok := f.host.Lookup("echo"); return !ok })
	f.waitUp(t, "web", 1)
}

func TestHTTPCancelReachesServer(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) { hTTPCancelReachesServer(t, rev) })
	}
}

func hTTPCancelReachesServer(t *testing.T, rev string) {
	hs := newHTTPServerIn(t, rev)
	f := newFixture(t)
	f.m.Apply([]config.MCPServer{{Name: "web", URL: hs.url}}, time.Minute)
	f.waitUp(t, "web", 7)

	ctx, cancel := context.WithCancel(context.Background())
	type answer struct {
		res toolhost.Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := f.call(ctx, "wait", `{}`)
		done <- answer{res, err}
	}()
	<-hs.entered
	cancel() // the client went away
	a := <-done
	if a.err == nil || a.res.Err == nil || a.res.Err.Code != toolhost.CodeCancelled {
		t.Errorf("cancelled call = %+v, %v; want CANCELLED", a.res, a.err)
	}
	select {
	case <-hs.handlerCancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the server's handler never saw the cancellation")
	}
	if rev < statelessRevision {
		waitFor(t, "notifications/cancelled at the server", func() bool { return hs.cancelNotes.Load() > 0 })
	} else if n := hs.cancelNotes.Load(); n != 0 {
		// Stateless, the closed response stream is the cancellation.
		t.Errorf("%d notifications/cancelled sent to a stateless server", n)
	}
}

func TestHTTPTimeout(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) { hTTPTimeout(t, rev) })
	}
}

func hTTPTimeout(t *testing.T, rev string) {
	hs := newHTTPServerIn(t, rev)
	f := newFixture(t)
	f.m.Apply([]config.MCPServer{{Name: "web", URL: hs.url, Tools: []string{"wait"},
		Overrides: map[string]config.MCPOverride{"wait": {Timeout: 50 * time.Millisecond}}}}, time.Minute)
	f.waitUp(t, "web", 1)
	res, err := f.call(context.Background(), "wait", `{}`)
	if err != nil || res.Err == nil || res.Err.Code != toolhost.CodeTimeout || !strings.Contains(res.Err.Message, "50ms") {
		t.Errorf("wait = %+v, %v; want TIMEOUT after 50ms", res, err)
	}
	<-hs.handlerCancelled
}

// TestHTTPServerGoesDown: a call that fails on the transport makes the
// manager check the server at once; a failed ping takes its tools out
// until it answers again, while its state keeps their names for turns to
// say why they cannot run.
func TestHTTPServerGoesDown(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) { hTTPServerGoesDown(t, rev) })
	}
}

func hTTPServerGoesDown(t *testing.T, rev string) {
	hs := newHTTPServerIn(t, rev)
	f := newFixture(t)
	f.m.Apply([]config.MCPServer{{Name: "web", URL: hs.url + "/?token=s3cret", Tools: []string{"echo"}}}, time.Minute)
	f.waitUp(t, "web", 1)

	hs.down.Store(true)
	res, _ := f.call(context.Background(), "echo", `{"text":"x"}`)
	if res.Err == nil || res.Err.Code != toolhost.CodeExecutionFailed || strings.Contains(res.Err.Message, "s3cret") {
		t.Errorf("call to a down server = %+v", res)
	}
	waitFor(t, "down with its tools gone", func() bool {
		s, _ := f.state("web")
		return s.Status == StatusDown && len(mcpTools(f.host)) == 0
	})
	if s, _ := f.state("web"); strings.Contains(s.Error, "s3cret") || s.Error == "" {
		t.Errorf("State.Error = %q: want the failure without the URL's query", s.Error)
	}
	if s, _ := f.state("web"); !slices.Equal(s.Names, []string{"echo"}) {
		t.Errorf("State.Names while down = %q, want [echo]", s.Names)
	}
	hs.down.Store(false)
	f.waitUp(t, "web", 1)
	if strings.Contains(f.log.String(), "s3cret") {
		t.Error("the URL's token reached the log")
	}
}

// TestHTTPParamHeader: a stateless server's tool that marks a parameter
// with x-mcp-header gets its value in an Mcp-Param-* header as well, as
// the revision asks of every client (the SDK's client does it from the
// listed schema).
func TestHTTPParamHeader(t *testing.T) {
	hs := newHTTPServerIn(t, statelessRevision)
	hs.srv.AddTool(&mcp.Tool{Name: "query", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"q":{"type":"string"}},"required":["region"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult("rows"), nil
		})
	f := newFixture(t)
	f.m.Apply([]config.MCPServer{{Name: "web", URL: hs.url, Tools: []string{"query"}}}, time.Minute)
	f.waitUp(t, "web", 1)
	if res, err := f.call(context.Background(), "query", `{"region":"us-west1","q":"x"}`); err != nil || res.Content != "rows" {
		t.Fatalf("query = %+v, %v", res, err)
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if !slices.Equal(hs.regions, []string{"us-west1"}) {
		t.Errorf("Mcp-Param-Region headers %q", hs.regions)
	}
}
