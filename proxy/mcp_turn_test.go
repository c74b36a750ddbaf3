package proxy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/mcp"
)

// calcServer is an in-process streamable-HTTP MCP server with one tool,
// add, that answers with structured content.
func calcServer(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "calc", Version: "1"}, nil)
	type in struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	type out struct {
		Sum int `json:"sum"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Adds two integers."},
		func(_ context.Context, _ *sdk.CallToolRequest, args in) (*sdk.CallToolResult, out, error) {
			return nil, out{Sum: args.A + args.B}, nil
		})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// mcpTurnEnv serves the proxy with the tools of one MCP server, once they
// are registered.
func mcpTurnEnv(t *testing.T, yaml string, server config.MCPServer, rounds ...upstreamtest.Round) *turnEnv {
	t.Helper()
	p := newParts(t, yaml, rounds)
	host := p.host(t, toolhost.Options{})
	m := mcp.New(host, mcp.Options{})
	t.Cleanup(func() { m.Close() })
	m.Apply([]config.MCPServer{server}, 30*time.Second)
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := m.States()
		if len(st) == 1 && st[0].Status == mcp.StatusUp && st[0].Tools > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("MCP server %s not up: %+v", server.Name, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return p.serve(t, proxy.Options{Tools: host})
}

// mcpTurn runs a turn and returns the client stream and the upstream's
// requests.
func mcpTurn(t *testing.T, e *turnEnv) (string, []upstreamtest.Request) {
	t.Helper()
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest)
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Fatalf("turn: %d\n%s", resp.StatusCode, body)
	}
	return body, e.up.Requests()
}

func mustContain(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q:\n%s", what, sub, s)
		}
	}
}

// TestMCPTextModeTurn: a model taught in text mode (hermes) calls an MCP
// server's tool; the call runs on the server, the client sees its events
// and never the markup, and round 2 gets the result in <tool_response>.
func TestMCPTextModeTurn(t *testing.T) {
	e := mcpTurnEnv(t, textUpstream, config.MCPServer{Name: "calc", URL: calcServer(t), Tools: []string{"*"}, Approval: "never"},
		textRound("r1", "Adding. ", call("add", `{"a": "2", "b": 3}`)),
		textRound("r2", "2 + 3 = 5."))
	body, reqs := mcpTurn(t, e)
	mustContain(t, "the client stream", body, `"event":"tool.started","call_id":"call_`, `"name":"add"`, `"status":"ok","result":{"sum":5}`, "2 + 3 = 5.")
	if strings.Contains(body, "tool_call") {
		t.Errorf("the client saw markup:\n%s", body)
	}
	if len(reqs) != 2 {
		t.Fatalf("upstream rounds = %d, want 2", len(reqs))
	}
	mustContain(t, "round 1's request (the tools section)", string(reqs[0].Body), "## add", "Adds two integers.")
	mustContain(t, "round 2's request", string(reqs[1].Body), `\u003ctool_response\u003e`, `\"content\":{\"sum\":5}`)
}

// TestMCPNativeModeTurn: the same tool in native mode is sent as a
// function in tools; the model's delta.tool_calls runs on the MCP server
// and round 2 gets a role "tool" message with the result.
func TestMCPNativeModeTurn(t *testing.T) {
	yaml := strings.Replace(textUpstream, "tool_mode: text", "tool_mode: native", 1)
	r1 := upstreamtest.Round{Events: []string{
		upstreamtest.Chunk("n1", "m", `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_n1","type":"function","function":{"name":"add","arguments":""}}]}`, ""),
		upstreamtest.Chunk("n1", "m", `{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":40,\"b\":2}"}}]}`, ""),
		upstreamtest.Chunk("n1", "m", `{}`, "tool_calls"),
	}}
	e := mcpTurnEnv(t, yaml, config.MCPServer{Name: "calc", URL: calcServer(t), Tools: []string{"*"}, Approval: "never"},
		r1, textRound("n2", "It is 42."))
	body, reqs := mcpTurn(t, e)
	mustContain(t, "the client stream", body, `"name":"add"`, `"result":{"sum":42}`, "It is 42.", `"finish_reason":"stop"`)
	if len(reqs) != 2 {
		t.Fatalf("upstream rounds = %d, want 2", len(reqs))
	}
	mustContain(t, "round 1's tools", string(reqs[0].Body), `"name":"add"`, `"description":"Adds two integers."`)
	var r2 struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			Content    string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[1].Body, &r2); err != nil {
		t.Fatal(err)
	}
	last := r2.Messages[len(r2.Messages)-1]
	if last.Role != "tool" || last.ToolCallID != "call_n1" || !strings.Contains(last.Content, `"sum":42`) {
		t.Errorf("round 2's last message = %+v, want the tool result for call_n1", last)
	}
}

// TestMCPEverythingTurn runs the reference server from npm over stdio
// (installed by .ci/run) behind a text-mode turn.
func TestMCPEverythingTurn(t *testing.T) {
	script := everythingScript(t)
	e := mcpTurnEnv(t, textUpstream, config.MCPServer{
		Name: "everything", Command: "node", Args: []string{script, "stdio"},
		Tools: []string{"echo"}, Prefix: "ev_", Approval: "never",
	},
		textRound("e1", call("ev_echo", `{"message": "hello from a text-mode model"}`)),
		textRound("e2", "It echoed."))
	body, reqs := mcpTurn(t, e)
	mustContain(t, "the client stream", body, `"name":"ev_echo"`, `"status":"ok"`, "Echo: hello from a text-mode model", "It echoed.")
	if len(reqs) == 2 {
		mustContain(t, "round 2's request", string(reqs[1].Body), "Echo: hello from a text-mode model")
	}
}

// TestMCPEverythingNativeTurn: the reference server's get-sum in native
// mode.
func TestMCPEverythingNativeTurn(t *testing.T) {
	script := everythingScript(t)
	yaml := strings.Replace(textUpstream, "tool_mode: text", "tool_mode: native", 1)
	r1 := upstreamtest.Round{Events: []string{
		upstreamtest.Chunk("g1", "m", `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_g1","type":"function","function":{"name":"ev_get-sum","arguments":"{\"a\":19,\"b\":23}"}}]}`, ""),
		upstreamtest.Chunk("g1", "m", `{}`, "tool_calls"),
	}}
	e := mcpTurnEnv(t, yaml, config.MCPServer{
		Name: "everything", Command: "node", Args: []string{script, "stdio"},
		Tools: []string{"get-sum"}, Prefix: "ev_", Approval: "never",
	}, r1, textRound("g2", "19 + 23 = 42."))
	body, reqs := mcpTurn(t, e)
	mustContain(t, "the client stream", body, `"name":"ev_get-sum"`, `"status":"ok"`, "42", "19 + 23 = 42.")
	if len(reqs) != 2 {
		t.Fatalf("upstream rounds = %d, want 2", len(reqs))
	}
	mustContain(t, "round 1's tools", string(reqs[0].Body), `"name":"ev_get-sum"`)
	mustContain(t, "round 2's request", string(reqs[1].Body), `"role":"tool"`, `"tool_call_id":"call_g1"`, "42")
}

// envEverything points at the reference MCP server's dist/index.js.
const envEverything = "TOOLSTREAM_MCP_EVERYTHING"

// everythingScript is the reference server's entry point, which .ci/run
// installs; without it the test is skipped, except in CI.
func everythingScript(t *testing.T) string {
	t.Helper()
	script := os.Getenv(envEverything)
	if script == "" {
		if os.Getenv("CI") != "" {
			t.Fatal(envEverything + " is not set; .ci/run installs @modelcontextprotocol/server-everything and sets it")
		}
		t.Skip("set " + envEverything + " to server-everything's dist/index.js (bash .ci/run does) to run this test")
	}
	return script
}
