package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// shopToken is the credential a request sends its MCP server; it must
// reach that server and nothing else.
const shopToken = "shop-TOKEN-7e1d0c94"

// shopServer is an MCP server a request names: Streamable HTTP, the
// go-sdk's server in-process. lookup_order answers with the order and,
// carelessly, the Authorization header it was sent; refund is another
// tool the requests may narrow away.
type shopServer struct {
	url string

	mu      sync.Mutex
	auth    []string // Authorization of every HTTP request
	methods []string // and its HTTP and JSON-RPC methods
	calls   []string // tools called, with their arguments
}

func newShopServer(t *testing.T) *shopServer {
	t.Helper()
	s := &shopServer{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "lookup_order", Description: "Find an order by its id.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.mu.Lock()
			s.calls = append(s.calls, "lookup_order "+string(req.Params.Arguments))
			auth := s.auth[len(s.auth)-1]
			s.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "order 42: shipped (asked with " + auth + ")"}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "refund", Description: "Refund an order.", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "refunded"}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "leak", Description: "Fails, quoting its request.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.mu.Lock()
			auth := s.auth[len(s.auth)-1]
			s.mu.Unlock()
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "refused: " + auth + " may not do this"}}}, nil
		})
	// A schema toolstream cannot validate against (a $ref to nowhere).
	srv.AddTool(&mcp.Tool{Name: "broken", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/$defs/nowhere"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct{ Method string }
		_ = json.Unmarshal(body, &msg)
		s.mu.Lock()
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.methods = append(s.methods, r.Method+" "+msg.Method)
		s.mu.Unlock()
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

func (s *shopServer) called() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

const reqMCPAdmin = "admin-key-reqmcp-1"

// reqMCPConfig is a proxy in front of a text-mode (or native) model that
// lets requests name MCP servers on 127.0.0.1, and has no tools of its
// own.
func reqMCPConfig(mode string) string {
	return `auth:
  admin_keys: ["` + reqMCPAdmin + `"]
  mcp_allow: ["127.0.0.1", "local*"]
loop:
  keepalive: 0s
upstreams:
  - name: up
    base_url: ${UPSTREAM}
    models: ["*"]
    tool_mode: ` + mode + `
    text_format: hermes
`
}

// shopCallRound is the model calling lookup_order, in the turn's mode.
func shopCallRound(mode string) upstreamtest.Round {
	if mode == "native" {
		return upstreamtest.Round{Events: []string{
			upstreamtest.Chunk("s1", "m", `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"s1_call","type":"function","function":{"name":"lookup_order","arguments":"{\"id\":42}"}}]}`, ""),
			upstreamtest.Chunk("s1", "m", `{}`, "tool_calls"),
		}}
	}
	return textRound("s1", call("lookup_order", `{"id": 42}`))
}

// shopTool is the Responses mcp tool naming the shop server.
func shopTool(url, require string) string {
	return `"tools":[{"type":"mcp","server_label":"shop","server_url":"` + url + `","authorization":"` + shopToken +
		`","allowed_tools":["lookup_order"],"require_approval":"` + require + `"}]`
}

// TestRequestMCPResponses: a Responses request naming its own MCP server
// gets its tools listed (mcp_list_tools, narrowed by allowed_tools),
// offered to the model in text and native mode, and a call run inside the
// stream as an mcp_call naming the server; the server got the request's
// token, which the model's result, the upstream and the audit log never
// see.
func TestRequestMCPResponses(t *testing.T) {
	for _, mode := range []string{"text", "native"} {
		t.Run(mode, func(t *testing.T) {
			shop := newShopServer(t)
			e := newResponsesEnv(t, reqMCPConfig(mode), []upstreamtest.Round{shopCallRound(mode), textRound("a1", "Order 42 has shipped.")})
			ignore := goleak.IgnoreCurrent()
			status, a, raw := e.post(t, `{"model":"m","input":"Where is order 42?",`+shopTool(shop.url, "never")+`}`)
			if status != 200 || a.Status != "completed" {
				t.Fatalf("response %d %s", status, raw)
			}
			if got := outputTypes(a); got != "mcp_list_tools,mcp_call,message" {
				t.Fatalf("output %s, want mcp_list_tools,mcp_call,message\n%s", got, raw)
			}
			items := rawItems(t, raw)
			for _, want := range []string{`"server_label":"shop"`, `"name":"lookup_order"`} {
				if !strings.Contains(string(items[0]), want) || !strings.Contains(string(items[1]), want) {
					t.Errorf("items lack %s:\n%s\n%s", want, items[0], items[1])
				}
			}
			if strings.Contains(string(items[0]), "refund") {
				t.Errorf("allowed_tools did not narrow the list: %s", items[0])
			}
			if got := shop.called(); len(got) != 1 || got[0] != `lookup_order {"id":42}` {
				t.Errorf("the server ran %v", got)
			}
			if !strings.Contains(string(items[1]), "order 42: shipped (asked with [redacted])") {
				t.Errorf("mcp_call output: %s", items[1])
			}
			up := strings.Join(responsesUpstream(t, e, 2), "\n")
			if !strings.Contains(up, "lookup_order") || strings.Contains(up, "refund") {
				t.Errorf("the model was not offered lookup_order alone:\n%s", up)
			}
			calls := readAll(t, e.do(t, http.MethodGet, "/admin/calls", "", "Authorization: Bearer "+reqMCPAdmin))
			if !strings.Contains(calls, `"mcp_server":"shop"`) {
				t.Errorf("the audit record does not name the server: %s", calls)
			}
			for what, s := range map[string]string{"response": raw, "upstream": up, "audit log": calls} {
				if strings.Contains(s, shopToken) {
					t.Errorf("the token reached the %s", what)
				}
			}
			shop.mu.Lock()
			if shop.auth[0] != "Bearer "+shopToken {
				t.Errorf("the server got Authorization %q", shop.auth[0])
			}
			shop.mu.Unlock()
			// The connection kept for later requests closes with the proxy.
			e.client.CloseIdleConnections()
			e.proxy.Close()
			goleak.VerifyNone(t, ignore)
		})
	}
}

// TestRequestMCPApproval: with require_approval the call ends the
// response on its mcp_approval_request, nothing run; the next request's
// mcp_approval_response runs it in that response, on the connection the
// first kept.
func TestRequestMCPApproval(t *testing.T) {
	shop := newShopServer(t)
	e := newResponsesEnv(t, reqMCPConfig("text"), []upstreamtest.Round{shopCallRound("text"), textRound("a1", "Order 42 has shipped.")})
	status, first, raw := e.post(t, `{"model":"m","input":"Where is order 42?",`+shopTool(shop.url, "always")+`}`)
	if status != 200 || outputTypes(first) != "mcp_list_tools,mcp_approval_request" {
		t.Fatalf("first response %d %s", status, raw)
	}
	if n := len(shop.called()); n != 0 {
		t.Fatalf("the tool ran %d times before its approval", n)
	}
	answer := `{"type":"mcp_approval_response","approval_request_id":"` + first.Output[1].ID + `","approve":true}`
	status, second, raw := e.post(t, `{"model":"m","previous_response_id":"`+first.ID+`","input":[`+answer+`],`+shopTool(shop.url, "always")+`}`)
	if status != 200 || outputTypes(second) != "mcp_call,message" {
		t.Fatalf("second response %d %s", status, raw)
	}
	if got := shop.called(); len(got) != 1 {
		t.Errorf("the server ran %v, want lookup_order once", got)
	}
	shop.mu.Lock()
	defer shop.mu.Unlock()
	// One connection for both requests: one initialize, one tools/list.
	joined := strings.Join(shop.methods, ",")
	if strings.Count(joined, "POST initialize") != 1 || strings.Count(joined, "tools/list") != 1 {
		t.Errorf("the server was connected more than once: %v", shop.methods)
	}
}

// TestRequestMCPRefused: a server outside auth.mcp_allow, an internal
// address a glob would reach, and an allowed name that resolves to
// loopback (a DNS rebinding) are refused before any upstream request.
func TestRequestMCPRefused(t *testing.T) {
	shop := newShopServer(t)
	port := shop.url[strings.LastIndex(shop.url, ":"):]
	tests := []struct {
		name, url  string
		wantStatus int
		wantCode   string
		wantMsg    string
	}{
		{"host not allowed", "https://mcp.example.com/mcp", 400, "mcp_server_not_allowed", `MCP server host \"mcp.example.com\" is not allowed: it is not in this proxy's auth.mcp_allow`},
		{"rebinding name", "http://localhost" + port, 424, "mcp_server_unavailable", `MCP server \"shop\": connecting: refused: the MCP server's address is private`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newResponsesEnv(t, reqMCPConfig("text"), []upstreamtest.Round{textRound("a1", "never")})
			status, _, raw := e.post(t, `{"model":"m","input":"hi",`+shopTool(tt.url, "never")+`}`)
			if status != tt.wantStatus || !strings.Contains(raw, `"code":"`+tt.wantCode+`"`) || !strings.Contains(raw, tt.wantMsg) {
				t.Fatalf("got %d %s, want %d %s saying %s", status, raw, tt.wantStatus, tt.wantCode, tt.wantMsg)
			}
			if strings.Contains(raw, "127.0.0.1") || strings.Contains(raw, port) {
				t.Errorf("the error names an address: %s", raw)
			}
			if n := len(e.up.Requests()); n != 0 {
				t.Errorf("the upstream got %d requests", n)
			}
		})
	}
}

// shopMessages is a Messages request naming the shop server, with the
// mcp_toolset that offers lookup_order alone.
func shopMessages(url string, stream bool) string {
	return `{"model":"m","max_tokens":200,"stream":` + map[bool]string{true: "true", false: "false"}[stream] + `,` +
		`"messages":[{"role":"user","content":"Where is order 42?"}],` +
		`"mcp_servers":[{"type":"url","url":"` + url + `","name":"shop","authorization_token":"` + shopToken + `"}],` +
		`"tools":[{"type":"mcp_toolset","mcp_server_name":"shop","default_config":{"enabled":false},"configs":{"lookup_order":{"enabled":true}}}]}`
}

// TestRequestMCPMessages: a Messages request's mcp_servers entry and its
// mcp_toolset give the model the server's tools the toolset enables, in
// text and native mode; a policy holds the call for approval, decided
// through /v1/actions; the answer holds the call as mcp_tool_use and
// mcp_tool_result blocks naming the server, and the token reaches the
// server alone.
func TestRequestMCPMessages(t *testing.T) {
	for _, mode := range []string{"text", "native"} {
		t.Run(mode, func(t *testing.T) {
			shop := newShopServer(t)
			cfg := reqMCPConfig(mode) + "policies:\n  - name: hold-orders\n    tools: [lookup_order]\n    action: approve\n"
			e := newResponsesEnv(t, cfg, []upstreamtest.Round{shopCallRound(mode), textRound("a1", "Order 42 has shipped.")})
			stop := e.decideActions(t, "approve")
			resp := e.do(t, http.MethodPost, "/v1/messages", shopMessages(shop.url, false), "anthropic-version: 2023-06-01", "anthropic-beta: mcp-client-2025-11-20")
			raw := readAll(t, resp)
			stop()
			var msg struct {
				Content []struct {
					Type, Name, Text string
					ServerName       string `json:"server_name"`
					IsError          bool   `json:"is_error"`
				}
				StopReason string `json:"stop_reason"`
			}
			if err := json.Unmarshal([]byte(raw), &msg); err != nil || resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, raw)
			}
			var types []string
			for _, c := range msg.Content {
				types = append(types, c.Type)
			}
			if got := strings.Join(types, ","); got != "mcp_tool_use,mcp_tool_result,text" || msg.StopReason != "end_turn" {
				t.Fatalf("content %s, stop %s\n%s", got, msg.StopReason, raw)
			}
			if msg.Content[0].ServerName != "shop" || msg.Content[1].IsError || !strings.Contains(raw, "order 42: shipped") {
				t.Errorf("the call's blocks: %s", raw)
			}
			if got := shop.called(); len(got) != 1 {
				t.Errorf("the server ran %v, want lookup_order once", got)
			}
			up := strings.Join(responsesUpstream(t, e, 1), "\n") + string(e.up.Requests()[0].Body)
			if !strings.Contains(up, "lookup_order") || strings.Contains(up, "refund") {
				t.Errorf("the toolset's choice did not hold: %s", up)
			}
			calls := readAll(t, e.do(t, http.MethodGet, "/admin/calls", "", "Authorization: Bearer "+reqMCPAdmin))
			if !strings.Contains(calls, `"mcp_server":"shop"`) || !strings.Contains(calls, `"source":"messages"`) || !strings.Contains(calls, `"policy":"hold-orders"`) {
				t.Errorf("the audit record: %s", calls)
			}
			for what, s := range map[string]string{"answer": raw, "upstream": up, "audit log": calls} {
				if strings.Contains(s, shopToken) {
					t.Errorf("the token reached the %s", what)
				}
			}
		})
	}
}

// TestRequestMCPMessagesRefused: an mcp_toolset naming no server, and a
// server outside mcp_allow, are refused in Anthropic's shape.
func TestRequestMCPMessagesRefused(t *testing.T) {
	e := newResponsesEnv(t, reqMCPConfig("text"), []upstreamtest.Round{textRound("a1", "never")})
	tests := []struct{ name, body, want string }{
		{"stray toolset", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"mcp_toolset","mcp_server_name":"nope"}]}`,
			`tools.0.mcp_server_name: \"nope\" names no mcp_servers entry of this request`},
		{"host not allowed", shopMessages("https://mcp.example.com/mcp", false), `MCP server host \"mcp.example.com\" is not allowed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := e.do(t, http.MethodPost, "/v1/messages", tt.body)
			raw := readAll(t, resp)
			if resp.StatusCode != 400 || !strings.Contains(raw, `"type":"invalid_request_error"`) || !strings.Contains(raw, tt.want) {
				t.Errorf("%d %s, want 400 saying %s", resp.StatusCode, raw, tt.want)
			}
		})
	}
	if n := len(e.up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests", n)
	}
}

// TestRequestMCPReload: auth.mcp_allow follows a reload: a server allowed
// before is refused after a reload that empties the list, and allowed
// again after one that restores it.
func TestRequestMCPReload(t *testing.T) {
	shop := newShopServer(t)
	p := newParts(t, reqMCPConfig("text"), []upstreamtest.Round{textRound("a1", "No tool needed."), textRound("a2", "No tool needed.")})
	w := wired(t, openStore(t, config.Storage{InMemory: true}, badger.Options{}))
	e := p.serve(t, w.Proxy(proxy.Options{}, p.host(t, w.Host(toolhost.Options{})), nil))
	body := `{"model":"m","input":"hi",` + shopTool(shop.url, "never") + `}`
	closed := *p.cfg
	closed.Auth.MCPAllow = nil
	if err := e.proxy.Reload(&closed); err != nil {
		t.Fatal(err)
	}
	if status, _, raw := e.post(t, body); status != 400 || !strings.Contains(raw, "auth.mcp_allow is empty") {
		t.Errorf("after a reload emptying mcp_allow: %d %s", status, raw)
	}
	if err := e.proxy.Reload(p.cfg); err != nil {
		t.Fatal(err)
	}
	if status, a, raw := e.post(t, body); status != 200 || outputTypes(a) != "mcp_list_tools,message" {
		t.Errorf("after a reload restoring it: %d %s", status, raw)
	}
}

// TestRequestMCPManyTools: past loop.tool_search_threshold a server's
// whole list is found through find_tools, while tools the request named
// one by one are shown as they are.
func TestRequestMCPManyTools(t *testing.T) {
	shop := newShopServer(t)
	cfg := strings.Replace(reqMCPConfig("native"), "  keepalive: 0s\n", "  keepalive: 0s\n  tool_search_threshold: 1\n", 1)
	tests := []struct {
		name, allowed string
		want, not     string
	}{
		{"whole list", "", `"name":"find_tools"`, `"name":"lookup_order"`},
		{"named tools", `,"allowed_tools":["lookup_order","refund"]`, `"name":"lookup_order"`, `"name":"find_tools"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newResponsesEnv(t, cfg, []upstreamtest.Round{textRound("a1", "Hello.")})
			tool := `"tools":[{"type":"mcp","server_label":"shop","server_url":"` + shop.url + `","require_approval":"never"` + tt.allowed + `}]`
			if status, _, raw := e.post(t, `{"model":"m","input":"hi",`+tool+`}`); status != 200 {
				t.Fatalf("%d %s", status, raw)
			}
			body := string(e.up.Requests()[0].Body)
			if !strings.Contains(body, tt.want) || strings.Contains(body, tt.not) {
				t.Errorf("the model's tools hold %s / %s:\n%s", tt.want, tt.not, body)
			}
		})
	}
}

// TestRequestMCPPreApproved: toolstream.approve may name a request-named
// server's tool: its require_approval call then runs without asking,
// and a name that is no tool of the turn is still refused.
func TestRequestMCPPreApproved(t *testing.T) {
	shop := newShopServer(t)
	e := newResponsesEnv(t, reqMCPConfig("text"), []upstreamtest.Round{shopCallRound("text"), textRound("a1", "Shipped.")})
	status, a, raw := e.post(t, `{"model":"m","input":"Where is order 42?","toolstream":{"approve":["lookup_order"]},`+shopTool(shop.url, "always")+`}`)
	if status != 200 || outputTypes(a) != "mcp_list_tools,mcp_call,message" {
		t.Fatalf("pre-approved: %d %s", status, raw)
	}
	status, _, raw = e.post(t, `{"model":"m","input":"hi","toolstream":{"approve":["nope"]},`+shopTool(shop.url, "always")+`}`)
	if status != 400 || !strings.Contains(raw, `\"nope\" is not a server tool of this turn`) {
		t.Errorf("unknown pre-approval: %d %s", status, raw)
	}
}

// TestRequestMCPBadSchema: a tool whose input schema toolstream cannot
// validate against is left out of the turn alone; the server's other
// tools are listed and offered.
func TestRequestMCPBadSchema(t *testing.T) {
	shop := newShopServer(t)
	e := newResponsesEnv(t, reqMCPConfig("native"), []upstreamtest.Round{textRound("a1", "Hello.")})
	tool := `"tools":[{"type":"mcp","server_label":"shop","server_url":"` + shop.url + `","require_approval":"never"}]`
	status, _, raw := e.post(t, `{"model":"m","input":"hi",`+tool+`}`)
	items := rawItems(t, raw)
	if status != 200 || len(items) == 0 {
		t.Fatalf("%d %s", status, raw)
	}
	list := string(items[0])
	if !strings.Contains(list, `"name":"lookup_order"`) || !strings.Contains(list, `"name":"refund"`) || strings.Contains(list, "broken") {
		t.Errorf("mcp_list_tools: %s", list)
	}
}
