package agents_test

import (
	"strings"
	"testing"

	"github.com/toolstream/toolstream/examples/internal/exampletest"
)

// TestDemo follows docs/agents.md's "Try it without a model": every
// agent, set up with the settings the page shows (and the flags these
// tests run it with), asks `toolstream demo -listen` what is on the task
// board, and prints the demo's three tasks, which the demo's model read
// with its read_tasks server tool.
func TestDemo(t *testing.T) {
	modules := needAgents(t)
	base := startDemo(t)
	for _, a := range agents {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			r := &agentRun{home: t.TempDir(), work: t.TempDir(), base: base, model: "demo-model", prompt: "what's on my task board?", modules: modules}
			out, err := execAgent(t, a, r)
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range []string{"Buy groceries", "Call the plumber", "Renew my passport"} {
				if !strings.Contains(out, task) {
					t.Errorf("the answer has no %q:\n%s", task, out)
				}
			}
		})
	}
}

// startDemo runs toolstream demo -listen on a free loopback port until t
// ends, and returns its URL once it serves.
func startDemo(t *testing.T) string {
	t.Helper()
	base := "http://" + exampletest.FreeAddr(t)
	startToolstream(t, []string{"PATH=/usr/bin:/bin"}, base+"/healthz", "demo", "-listen", strings.TrimPrefix(base, "http://"))
	return base
}
