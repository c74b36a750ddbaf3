package clients_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestServerAndClientTools runs responses-client-tools.mjs (the openai
// SDK's responses.stream() with finalResponse(), responses.create with
// stream: true, and responses.create) and messages-client-tools.mjs
// (Anthropic's SDK, messages.create and messages.stream() with
// finalMessage()) against the planner model, once calling tools natively
// (delta.tool_calls, results as role "tool" messages) and once in text. In
// every conversation toolstream runs create_task inside the first answer,
// which the client reads in its protocol's form (an mcp_call item, or
// mcp_tool_use and mcp_tool_result blocks), and the answer ends with the
// client's get_location; the client runs it and sends its result back (with
// previous_response_id, or the whole conversation, server blocks included),
// and the model answers from both results. Each answer must come complete
// once, with the usage of all its rounds.
func TestServerAndClientTools(t *testing.T) {
	modules := nodeModules(t)
	// The planner counts 10 prompt tokens a message and 5 completion
	// tokens a round. Natively, the first answer's rounds send 1 and 3
	// messages (question; call and result), the second one 5; in text,
	// a system prompt teaches the tools and each result is a user
	// message: 2 and 4, then 6.
	usage := map[string][2]string{
		"native": {"usage 40 in + 10 out", "usage 50 in + 5 out"},
		"text":   {"usage 60 in + 10 out", "usage 60 in + 5 out"},
	}
	for _, mode := range []string{"native", "text"} {
		u := usage[mode]
		t.Run(mode+"/responses", func(t *testing.T) {
			base, hooks, model := startPlanner(t, mode)
			out := runNode(t, modules, base, "responses-client-tools.mjs")
			for _, way := range []struct{ label, completed string }{
				{"responses.stream", " · 1 response.completed"},
				{"responses.create stream", " · 1 response.completed"},
				{"responses.create", ""},
			} {
				want := way.label + ":\n" +
					"assistant ▸ Adding it.\n" +
					`▸ create_task ✓ [toolstream] {"title":"Gym"} → {"id":1,"title":"Gym"}` + "\n" +
					"assistant ▸ Where are you?\n" +
					"── completed" + way.completed + " · output message,mcp_call,message,function_call · " + u[0] + " = 50\n" +
					"  get_location({}) run by the client\n" +
					"assistant ▸ Done: Gym is on your board for tomorrow, in Paris.\n" +
					"── completed" + way.completed + " · output message · " + u[1] + " = 55\n"
				if mode == "text" {
					want = strings.NewReplacer(" = 50\n", " = 70\n", " = 55\n", " = 65\n").Replace(want)
				}
				if !strings.Contains(out, want) {
					t.Errorf("output lacks\n%s\n--- it is:\n%s", want, out)
				}
			}
			checkTurns(t, mode, out, model, hooks, 3)
		})
		t.Run(mode+"/messages", func(t *testing.T) {
			base, hooks, model := startPlanner(t, mode)
			out := runNode(t, modules, base, "messages-client-tools.mjs", "Add a gym session near me for tomorrow.")
			// In text mode the text before a call keeps its space.
			sp := map[string]string{"native": "", "text": " "}[mode]
			for _, way := range []struct{ label, stops string }{
				{"messages.create", ""},
				{"messages.stream", " · 1 message_stop"},
			} {
				want := way.label + ":\n" +
					"assistant ▸ Adding it." + sp + "\n" +
					`▸ create_task ✓ [toolstream] {"title":"Gym"} → {"id":1,"title":"Gym"}` + "\n" +
					"assistant ▸ Where are you?" + sp + "\n" +
					"── tool_use" + way.stops + " · blocks text,mcp_tool_use,mcp_tool_result,text,tool_use · " + u[0] + "\n" +
					"  get_location({}) run by the client (toolu_call_"
				if !strings.Contains(out, want) {
					t.Errorf("output lacks\n%s\n--- it is:\n%s", want, out)
				}
				want = ")\nassistant ▸ Done: Gym is on your board for tomorrow, in Paris.\n" +
					"── end_turn" + way.stops + " · blocks text · " + u[1] + "\n"
				if !strings.Contains(out, want) {
					t.Errorf("output lacks\n%s\n--- it is:\n%s", want, out)
				}
			}
			checkTurns(t, mode, out, model, hooks, 2)
		})
	}
}

// usageIn is a printed answer's input tokens.
var usageIn = regexp.MustCompile(`· usage (\d+) in`)

// checkTurns checks what the model was sent in convs conversations of
// three requests each (the two rounds of the first answer, then the
// answer to the client's result): every round got the tools in its tool
// mode's way, create_task ran once a conversation, the client's result
// reached the model, and each printed answer's input tokens are the sum
// of its rounds'.
func checkTurns(t *testing.T, mode, out string, model *upstreamtest.Server, hooks *hookCounter, convs int) {
	t.Helper()
	if strings.Contains(out, "<tool_call>") {
		t.Errorf("markup reached the client:\n%s", out)
	}
	if n := hooks.count(); n != convs {
		t.Errorf("create_task ran %d times, want once a conversation (%d)", n, convs)
	}
	reqs := model.Requests()
	if len(reqs) != 3*convs {
		t.Fatalf("the model got %d requests, want %d", len(reqs), 3*convs)
	}
	var prompts []int
	for i, r := range reqs {
		var body struct {
			Messages []struct {
				Role       string `json:"role"`
				Content    any    `json:"content"`
				ToolCallID string `json:"tool_call_id"`
			} `json:"messages"`
			Tools []struct {
				Function struct{ Name string } `json:"function"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		prompts = append(prompts, 10*len(body.Messages))
		var names []string
		for _, tl := range body.Tools {
			names = append(names, tl.Function.Name)
		}
		switch got := strings.Join(names, ","); {
		case mode == "native" && got != "get_location,create_task":
			t.Errorf("request %d carried tools %q, want the client's and the server's", i, got)
		case mode == "text" && got != "":
			t.Errorf("request %d carried tools %q to a text-mode model", i, got)
		}
		if i%3 != 2 {
			continue
		}
		last := body.Messages[len(body.Messages)-1]
		c := toText(last.Content)
		if mode == "native" && (last.Role != "tool" || !strings.Contains(c, "Paris") || last.ToolCallID == "") {
			t.Errorf("request %d ends with %+v, want the client's result as a tool message", i, last)
		}
		if mode == "text" && (last.Role != "user" || !strings.Contains(c, "<tool_response>") || !strings.Contains(c, "Paris")) {
			t.Errorf("request %d ends with %+v, want the client's result in a hermes frame", i, last)
		}
	}
	var printed []int
	for _, m := range usageIn.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		printed = append(printed, n)
	}
	var want []int
	for c := range convs {
		want = append(want, prompts[3*c]+prompts[3*c+1], prompts[3*c+2])
	}
	if fmt.Sprint(printed) != fmt.Sprint(want) {
		t.Errorf("answers' input tokens %v, want the sums of their rounds' %v", printed, want)
	}
}
