package clients_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestResponsesClients runs responses.mjs (the openai SDK's
// responses.stream and responses.create), ai-sdk-responses.mjs (the AI
// SDK's openai.responses() with streamText) and agents.mjs (an
// @openai/agents Agent with OpenAIResponsesModel) against /v1/responses in
// front of a
// scripted text-mode model. In each, toolstream runs create_task and the
// client then runs its own get_location; the client's next request brings
// its result — the openai SDK with previous_response_id, the Agents SDK
// with the whole conversation, mcp_call item included, which is restored
// and not run again — and the model answers from both results. The
// openai script then asks a follow-up that only the stored conversation
// can answer.
func TestResponsesClients(t *testing.T) {
	modules := nodeModules(t)
	base, hooks, _ := startPlanner(t, "text")
	tests := []struct {
		script string
		want   []string
	}{
		{"responses.mjs", []string{
			"responses.stream:\nassistant ▸ Adding it.\n" +
				`▸ create_task ✓ [toolstream] {"title":"Gym"} → {"id":1,"title":"Gym"}` +
				"\nassistant ▸ Where are you?\n── completed · output message,mcp_call,message,function_call · usage ",
			"  get_location({}) run by the client\nassistant ▸ Done: Gym is on your board for tomorrow, in Paris.\n── completed · output message · usage ",
			"responses.create:\nassistant ▸ You have one task: Gym, in Paris.\n── completed · output message · usage ",
			"── retrieved resp_", ": same answer",
		}},
		{"ai-sdk-responses.mjs", []string{
			"assistant ▸ Adding it.\n" + `▸ mcp.create_task ✓ → {"id":1,"title":"Gym"}` + "\nassistant ▸ Where are you?\n  get_location({}) run by the client\n",
			"assistant ▸ Done: Gym is on your board for tomorrow, in Paris.\n── 2 steps · ",
		}},
		{"agents.mjs", []string{
			"assistant ▸ Adding it.\nassistant ▸ Where are you?\n" +
				`▸ create_task ✓ [toolstream] → {"id":1,"title":"Gym"}` + "\n  get_location({}) run by the agent\n",
			"assistant ▸ Done: Gym is on your board for tomorrow, in Paris.\n",
			"── final: Done: Gym is on your board for tomorrow, in Paris.",
			"── the agent ran get_location 1 times · 2 responses · ",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			before := hooks.count()
			out := runNode(t, modules, base, tt.script)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q\n%s", w, out)
				}
			}
			if strings.Contains(out, "<tool_call>") {
				t.Errorf("markup reached the client:\n%s", out)
			}
			if n := hooks.count() - before; n != 1 {
				t.Errorf("create_task ran %d times, want once", n)
			}
		})
	}
}

// hookCounter is the create_task webhook: it answers with the task and
// counts its calls.
type hookCounter struct {
	srv   *httptest.Server
	calls chan struct{}
}

func (h *hookCounter) count() int { return len(h.calls) }

// startPlanner serves the proxy with a store and the create_task webhook
// in front of the planner model, in tool mode "text" (hermes) or
// "native", and returns its base URL, the webhook and the model.
func startPlanner(t *testing.T, mode string) (string, *hookCounter, *upstreamtest.Server) {
	t.Helper()
	hooks := &hookCounter{calls: make(chan struct{}, 100)}
	hooks.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Arguments map[string]any }
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		hooks.calls <- struct{}{}
		body.Arguments["id"] = 1
		json.NewEncoder(w).Encode(body.Arguments)
	}))
	model := upstreamtest.NewFunc(planner(mode == "native"))
	yaml := fmt.Sprintf(`upstreams:
  - name: small
    base_url: %s
    models: ["*"]
    tool_mode: %s
    text_format: hermes
tools:
  - name: create_task
    description: Add a task to the user's board.
    parameters:
      type: object
      properties:
        title: {type: string}
        city: {type: string}
      required: [title]
    webhook: {url: "%s/create_task"}
`, model.URL, mode, hooks.srv.URL)
	t.Cleanup(func() {
		model.Close()
		hooks.srv.Close()
	})
	base := serveYAML(t, yaml)
	return base + "/v1", hooks, model
}

// planner is a model that plans from what it was sent: it adds the task
// (toolstream's create_task), asks for the user's city (the client's
// get_location), answers once it has both results — only if the task's
// result is still in the conversation it is sent — and answers a
// follow-up from the conversation. It calls tools in text (hermes markup,
// results read from <tool_response> frames) or, native, in
// delta.tool_calls with results in role "tool" messages. Every round ends
// with a usage chunk: 10 prompt tokens a message sent and 5 completion
// tokens, so a turn's usage is checkable as the sum over its rounds.
func planner(native bool) func(upstreamtest.Request) upstreamtest.Round {
	var calls atomic.Int64 // call ids, unique across the test's store
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
		all, last, lastRole := "", "", ""
		for _, m := range body.Messages {
			last, lastRole = toText(m.Content), m.Role
			all += last + "\n"
		}
		result := strings.Contains(last, "<tool_response>")
		taught := strings.Contains(all, "## get_location")
		if native {
			result, taught = lastRole == "tool", false
			for _, t := range body.Tools {
				taught = taught || t.Function.Name == "get_location"
			}
		}
		var text, name, args string
		switch {
		case strings.Contains(last, "What did you add?") && strings.Contains(all, `"title":"Gym"`):
			text = "You have one task: Gym, in Paris."
		case result && strings.Contains(last, "Paris"):
			text = "I lost track of the task."
			if strings.Contains(all, `"id":1`) {
				text = "Done: Gym is on your board for tomorrow, in Paris."
			}
		case result && strings.Contains(last, `"id":1`):
			text, name, args = "Where are you?", "get_location", `{}`
		case taught:
			text, name, args = "Adding it.", "create_task", `{"title":"Gym"}`
		default:
			text = "I can't tell."
		}
		var ev []string
		switch {
		case name == "":
			ev = upstreamtest.Text("c", "small-model", text)
		case native:
			call := fmt.Sprintf(`{"tool_calls":[{"index":0,"id":"call_%d","type":"function","function":{"name":%q,"arguments":%q}}]}`, calls.Add(1), name, args)
			ev = append(upstreamtest.Text("c", "small-model", text)[:2],
				upstreamtest.Chunk("c", "small-model", call, ""),
				upstreamtest.Chunk("c", "small-model", `{}`, "tool_calls"))
		default:
			ev = upstreamtest.Text("c", "small-model", text+" <tool_call>\n{\"name\": \""+name+"\", \"arguments\": "+args+"}\n</tool_call>")
		}
		return upstreamtest.Round{Events: append(ev, upstreamtest.Usage("c", "small-model", 10*len(body.Messages), 5))}
	}
}
