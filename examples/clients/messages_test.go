package clients_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestMessagesClients sends the demo conversation through /v1/messages
// with Anthropic's SDK (messages.stream() and finalMessage()) and the AI
// SDK's Anthropic provider (streamText). Each must print the model's text
// from both rounds, a card per server call drawn from its mcp_tool_use and
// mcp_tool_result blocks, one end, and the usage of both rounds.
func TestMessagesClients(t *testing.T) {
	modules := nodeModules(t)
	base := startDemo(t)
	text := []string{
		"assistant ▸ Sure — I'll put those three on your board for tomorrow.",
		"assistant ▸ Done! I created 3 tasks for tomorrow",
		"Buy groceries\n", "Call the plumber\n", "Renew my passport\n",
	}
	tests := []struct {
		name   string
		script string
		args   []string
		want   []string
		cards  string
	}{
		{"anthropic", "anthropic.mjs", nil, append(text,
			"── stop_reason end_turn · 3 tool calls · 3 mcp_tool_use and 3 mcp_tool_result blocks in finalMessage() · "),
			"▸ create_task ✓\n"},
		{"anthropic expanded", "anthropic.mjs", []string{"--expand"}, append(text,
			`    arguments  {"title":"Buy groceries","due":"`, `    result     {"id":`),
			"▾ create_task ✓\n"},
		{"ai-sdk anthropic", "ai-sdk-anthropic.mjs", nil, append(text, "── finish_reason stop · 3 tool calls · "),
			"▸ create_task ✓\n"},
		{"ai-sdk anthropic expanded", "ai-sdk-anthropic.mjs", []string{"-e"}, append(text,
			`    arguments  {"title":"Renew my passport","due":"`, `    result     {"id":`),
			"▾ create_task ✓\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := runNode(t, modules, base, tt.script, tt.args...)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q\n%s", w, out)
				}
			}
			if n := strings.Count(out, tt.cards); n != 3 {
				t.Errorf("%d cards %q, want one per call (3)\n%s", n, tt.cards, out)
			}
			// Usage is summed over the two rounds: the scripted model
			// counts at least 180 prompt tokens a round.
			if strings.Contains(out, " 0 input + ") || strings.Contains(out, " NaN ") {
				t.Errorf("usage missing:\n%s", out)
			}
			if strings.Contains(out, "<tool_call>") {
				t.Errorf("tool markup reached the rendering:\n%s", out)
			}
		})
	}
}

// TestMessagesClientTools runs messages-client-tools.mjs: Anthropic's SDK
// with a tool of its own, against a model that only writes calls as text.
// The SDK must get a tool_use block, run its function, send the
// tool_result back and print the answer the model can give only once it
// read the result in its hermes frame — with messages.create and with
// messages.stream().
func TestMessagesClientTools(t *testing.T) {
	modules := nodeModules(t)
	model := upstreamtest.NewFunc(textToolModel)
	defer model.Close()
	cfg := config.Default()
	up := config.DefaultUpstreamEntry()
	up.Name, up.BaseURL, up.Models = "small", model.URL, config.Models("*")
	up.ToolMode, up.TextFormat = config.ToolModeText, config.TextFormatHermes
	cfg.Upstreams = []config.Upstream{up}
	p, err := proxy.New(&cfg, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer func() {
		srv.Close()
		p.Close()
	}()

	// The Anthropic SDK takes the host: no /v1.
	out := runNode(t, modules, srv.URL, "messages-client-tools.mjs")
	for _, w := range []string{
		"messages.create:\n── tool_use · blocks tool_use · usage 0 in + 0 out\n  get_location({}) run by the client (toolu_call_",
		"assistant ▸ You are in Paris.\n── end_turn · blocks text · usage 0 in + 0 out\nmessages.stream:\n" +
			"── tool_use · 1 message_stop · blocks tool_use · usage 0 in + 0 out\n  get_location({}) run by the client (toolu_call_",
		"assistant ▸ You are in Paris.\n── end_turn · 1 message_stop · blocks text · usage 0 in + 0 out\n",
		"── the client ran get_location 2 times",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q\n%s", w, out)
		}
	}
	if strings.Contains(out, "<tool_call>") {
		t.Errorf("markup reached the client:\n%s", out)
	}
}
