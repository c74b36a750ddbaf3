package clients_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

const reqMCPToken = "shop-token-4f1c9e"

// TestRequestMCPClients runs responses-mcp.mjs (the openai SDK's
// responses.create with an mcp tool naming a server, require_approval
// "always", then its mcp_approval_response), agents-mcp.mjs (the Agents
// SDK's hostedMcpTool with serverUrl and onApproval, which sends the
// whole conversation back) and messages-mcp.mjs
// (Anthropic's SDK with mcp_servers and an mcp_toolset, the call held by a
// policy and approved through /v1/actions) against a proxy in front of a
// scripted model, in text and native mode. The MCP server is the go-sdk's
// over Streamable HTTP, started here: each script must show its tools
// listed, one call of lookup_order run once with the request's token, and
// the model's answer from its result.
func TestRequestMCPClients(t *testing.T) {
	modules := nodeModules(t)
	for _, mode := range []string{"text", "native"} {
		t.Run(mode, func(t *testing.T) {
			shop := startShop(t)
			base := startReqMCP(t, mode)
			t.Setenv("MCP_URL", shop.url)
			t.Setenv("MCP_TOKEN", reqMCPToken)
			tests := []struct {
				script string
				want   []string
			}{
				{"responses-mcp.mjs", []string{
					"  [shop] lists lookup_order\n  approval asked: [shop] lookup_order {\"id\":42}\n── completed · output mcp_list_tools,mcp_approval_request\n",
					"▸ lookup_order ✓ [shop] {\"id\":42} → order 42: shipped on Monday\nassistant ▸ Your order 42 shipped on Monday.\n── completed · output mcp_call,message\n",
				}},
				{"agents-mcp.mjs", []string{
					"  approval asked: lookup_order {\"id\":42} → approved\n▸ lookup_order ✓ [shop] → order 42: shipped on Monday\n",
					"── final: Your order 42 shipped on Monday. · 2 responses\n",
				}},
				{"messages-mcp.mjs", []string{
					"  approval asked: lookup_order {\"id\":42} → approved\n",
					"▸ lookup_order [shop] {\"id\":42}\n  ✓ → order 42: shipped on Monday\nassistant ▸ Your order 42 shipped on Monday.\n── stop_reason end_turn · mcp_tool_use,mcp_tool_result,text\n",
				}},
			}
			for _, tt := range tests {
				t.Run(tt.script, func(t *testing.T) {
					before := shop.calls.Load()
					out := runNode(t, modules, base, tt.script)
					for _, w := range tt.want {
						if !strings.Contains(out, w) {
							t.Errorf("output lacks %q\n%s", w, out)
						}
					}
					if n := shop.calls.Load() - before; n != 1 {
						t.Errorf("lookup_order ran %d times, want once", n)
					}
					if strings.Contains(out, "<tool_call>") {
						t.Errorf("markup reached the client:\n%s", out)
					}
				})
			}
			if bad := shop.badAuth.Load(); bad != 0 {
				t.Errorf("the server got %d requests without the request's token", bad)
			}
		})
	}
}

// shop is the MCP server the scripts name.
type shop struct {
	url     string
	calls   atomic.Int32
	badAuth atomic.Int32
}

func startShop(t *testing.T) *shop {
	t.Helper()
	s := &shop{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "lookup_order", Description: "Find an order by its id.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "order 42: shipped on Monday"}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "cancel_order", Description: "Cancel an order.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "cancelled"}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+reqMCPToken {
			s.badAuth.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
	})
	s.url = ts.URL + "/mcp"
	return s
}

// startReqMCP serves the proxy with a store, mcp_allow naming the test
// servers' host, and a policy holding lookup_order for approval on
// Messages (Responses asks through require_approval), in front of
// shopModel.
func startReqMCP(t *testing.T, mode string) string {
	t.Helper()
	model := upstreamtest.NewFunc(shopModel(mode == "native"))
	yaml := fmt.Sprintf(`auth:
  mcp_allow: ["127.0.0.1"]
upstreams:
  - name: small
    base_url: %s
    models: ["*"]
    tool_mode: %s
    text_format: hermes
policies:
  - name: hold-orders-on-messages
    tools: [lookup_order]
    when: 'source == "messages"'
    action: approve
`, model.URL, mode)
	t.Cleanup(func() {
		model.Close()
	})
	base := serveYAML(t, yaml)
	return base + "/v1"
}

// shopModel calls lookup_order when it is offered and has no result yet,
// and answers from the result once it has one: in hermes markup (text)
// or delta.tool_calls (native).
func shopModel(native bool) func(upstreamtest.Request) upstreamtest.Round {
	var mu sync.Mutex
	n := 0
	return func(req upstreamtest.Request) upstreamtest.Round {
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
			Tools []struct {
				Function struct{ Name string } `json:"function"`
			} `json:"tools"`
		}
		json.Unmarshal(req.Body, &body)
		all := ""
		for _, m := range body.Messages {
			all += toText(m.Content) + "\n"
		}
		last := body.Messages[len(body.Messages)-1]
		switch {
		case strings.Contains(toText(last.Content), "shipped on Monday"):
			return upstreamtest.Round{Events: upstreamtest.Text("c", "small-model", "Your order 42 shipped on Monday.")}
		case native && len(body.Tools) == 1 && body.Tools[0].Function.Name == "lookup_order":
			mu.Lock()
			n++
			id := fmt.Sprintf("call_%d", n)
			mu.Unlock()
			call := `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"` + id + `","type":"function","function":{"name":"lookup_order","arguments":"{\"id\":42}"}}]}`
			return upstreamtest.Round{Events: []string{upstreamtest.Chunk("c", "small-model", call, ""), upstreamtest.Chunk("c", "small-model", `{}`, "tool_calls")}}
		case !native && strings.Contains(all, "## lookup_order") && !strings.Contains(all, "## cancel_order"):
			return upstreamtest.Round{Events: upstreamtest.Text("c", "small-model", "<tool_call>\n{\"name\": \"lookup_order\", \"arguments\": {\"id\": 42}}\n</tool_call>")}
		}
		return upstreamtest.Round{Events: upstreamtest.Text("c", "small-model", "I have no order tool.")}
	}
}
