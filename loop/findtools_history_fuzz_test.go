package loop

import (
	"testing"

	"github.com/toolstream/toolstream/toolhost"
)

// FuzzFoundBefore: any request body is read without panicking, and only
// tools of the turn are taken as found, each once, in the order found.
func FuzzFoundBefore(f *testing.F) {
	f.Add(`{"messages":[{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"find_tools"}}]},{"role":"tool","tool_call_id":"c1","content":"{\"tools\":[{\"name\":\"b\"},{\"name\":\"a\"}]}"}]}`)
	f.Add(`{"messages":[{"role":"user","content":"<tool_response>x</tool_response>\n\n# Tools found\n\nYou can call:\n\n## a\n\nParameters: none.\n## zz"}]}`)
	f.Add(`{"messages":[{"role":"tool","tool_call_id":"c1","content":"{\"tools\":[{\"name\":\"a\"}]}"}]}`)
	f.Add(`{"messages":7}`)
	f.Fuzz(func(t *testing.T, body string) {
		tools := []toolhost.Tool{{Name: "a"}, {Name: "b"}, {Name: "c"}}
		known := map[string]bool{"a": true, "b": true, "c": true}
		ts := &toolSearch{tools: tools}
		got := ts.foundBefore([]byte(body), known)
		if len(got) != len(ts.found) {
			t.Fatalf("set %v, list %v", got, ts.found)
		}
		seen := map[string]bool{}
		for _, tool := range ts.found {
			if !known[tool.Name] || seen[tool.Name] {
				t.Fatalf("found %q: not a tool of the turn, or twice", tool.Name)
			}
			seen[tool.Name] = true
		}
	})
}
