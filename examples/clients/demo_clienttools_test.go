package clients_test

import (
	"strings"
	"testing"
)

// TestClientToolsOnTheDemo runs the client-tool examples as a newcomer
// does, against `toolstream demo -listen`: the scripted model calls the
// client's get_location when asked where the user is, each SDK runs it
// once per way, and the model answers from the client's result.
func TestClientToolsOnTheDemo(t *testing.T) {
	modules := nodeModules(t)
	base := startDemo(t)
	for _, tc := range []struct {
		script string
		want   []string
	}{
		{"client-tools.mjs", []string{
			"openai runTools:\nLet me see where you are.",
			"AI SDK streamText:\nLet me see where you are.",
			"You are in Paris.",
			"── the client ran get_location 2 times",
		}},
		{"messages-client-tools.mjs", []string{
			"messages.create:\nassistant ▸ Let me see where you are.",
			"messages.stream:\nassistant ▸ Let me see where you are.",
			"assistant ▸ You are in Paris.\n── end_turn",
			"── the client ran get_location 2 times",
		}},
	} {
		t.Run(tc.script, func(t *testing.T) {
			out := runNode(t, modules, base, tc.script)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q\n%s", w, out)
				}
			}
			if n := strings.Count(out, "You are in Paris."); n != 2 {
				t.Errorf("%d answers from the client's result, want 2\n%s", n, out)
			}
		})
	}
}
