package mcpserve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/toolstream/toolstream/proxy/mcpserve"
	"github.com/toolstream/toolstream/toolhost"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// echo is an executor that answers with its arguments, as an MCP
// server's tool would.
type echo struct{}

func (echo) Execute(_ context.Context, _ toolhost.Call, args json.RawMessage) toolhost.Outcome {
	return toolhost.Outcome{Content: string(args), IsJSON: true}
}

// TestMCPServerUpAndDown: an MCP server's tools coming (it connects) and
// going (it goes down) reach a connected client as list_changed, through
// the tool host's Watch — a session's GET stream, or a stateless client's
// subscriptions/listen stream — and without keys, every tool is listed.
func TestMCPServerUpAndDown(t *testing.T) {
	for _, pv := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(pv, func(t *testing.T) { upAndDown(t, pv) })
	}
}

func upAndDown(t *testing.T, pv string) {
	host, err := toolhost.New(nil, toolhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	h := mcpserve.New(mcpserve.Options{Tools: host})
	defer h.Close()
	stop := host.Watch(h.ToolsChanged)
	defer stop()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.Serve(w, r, nil) }))
	defer srv.Close()
	defer srv.CloseClientConnections()

	changed := make(chan struct{}, 10)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, &mcp.ClientSessionOptions{ProtocolVersion: pv})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != pv {
		t.Fatalf("connected with %s, want %s", got, pv)
	}
	names := func() []string {
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range res.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	wait := func(what string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("no list_changed when %s", what)
		}
	}
	if got := names(); len(got) != 0 {
		t.Fatalf("before the server is up: %v", got)
	}

	ev := toolhost.Tool{Name: "ev_echo", Description: "Echoes.", Parameters: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`)}
	if err := host.SetSource(toolhost.SourceMCPPrefix+"everything", []toolhost.Registration{{Tool: ev, Exec: echo{}}}); err != nil {
		t.Fatal(err)
	}
	wait("the server came up")
	if got := names(); !slices.Equal(got, []string{"ev_echo"}) {
		t.Errorf("with the server up: %v", got)
	}
	out, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ev_echo", Arguments: map[string]any{"message": "hi"}})
	if err != nil || out.IsError {
		t.Fatalf("call: %v %+v", err, out)
	}
	if sc, _ := json.Marshal(out.StructuredContent); string(sc) != `{"message":"hi"}` {
		t.Errorf("structured content %s", sc)
	}

	if err := host.SetSource(toolhost.SourceMCPPrefix+"everything", nil); err != nil {
		t.Fatal(err)
	}
	wait("the server went down")
	if got := names(); len(got) != 0 {
		t.Errorf("with the server down: %v", got)
	}
}
