package clients_test

import (
	"strings"
	"testing"
)

// TestClientToolsOnTheDemo runs the client-tool examples as a newcomer
// does, against `toolstream demo -listen`: the scripted model calls the
// client's get_location when asked where the user is (after the task it
// was asked for, for the Responses script), each SDK runs it once per
// way, and the model answers from the client's result.
func TestClientToolsOnTheDemo(t *testing.T) {
	modules := nodeModules(t)
	base := startDemo(t)
	for _, tc := range []struct {
		script string
		want   []string
		ways   int // each way of the SDK's asks once
	}{
		{"client-tools.mjs", []string{
			"openai runTools:\nLet me see where you are.",
			"AI SDK streamText:\nLet me see where you are.",
			"You are in Paris.",
			"── the client ran get_location 2 times",
		}, 2},
		{"responses-client-tools.mjs", []string{
			"responses.stream:\nassistant ▸ Sure — I'll put \"Gym session near me\" on your board for tomorrow.\n▸ create_task ✓ [toolstream]",
			"assistant ▸ Let me see where you are.\n── completed · 1 response.completed · output message,mcp_call,message,function_call",
			"is task #4 on your board, due ",
			"── the client ran get_location 3 times",
		}, 3},
		{"messages-client-tools.mjs", []string{
			"messages.create:\nassistant ▸ Let me see where you are.",
			"messages.stream:\nassistant ▸ Let me see where you are.",
			"assistant ▸ You are in Paris.\n── end_turn",
			"── the client ran get_location 2 times",
		}, 2},
	} {
		t.Run(tc.script, func(t *testing.T) {
			out := runNode(t, modules, base, tc.script)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q\n%s", w, out)
				}
			}
			if n := strings.Count(out, "You are in Paris."); n != tc.ways {
				t.Errorf("%d answers from the client's result, want %d\n%s", n, tc.ways, out)
			}
		})
	}
}
