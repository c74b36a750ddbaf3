package responses_test

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/responses"
)

// TestEncoderAgentCalls: each kind of client tool's call comes back in
// its own item, in a response answered whole, while what the stored
// conversation keeps — and what restores the item — is the call as the
// model made it, under the tool's flat name.
func TestEncoderAgentCalls(t *testing.T) {
	const body = `{"model":"m","input":"go","tools":[
		{"type":"namespace","name":"mcp__docs","tools":[{"type":"function","name":"search"}]},
		{"type":"custom","name":"apply_patch"},
		{"type":"tool_search"}]}`
	tests := []struct {
		name, flat string
		args       []string
		want       map[string]any // fields of the output item
		kept       string         // the stored conversation's message
	}{
		{"namespace", "mcp__docs__search", []string{`{"q":`, `"x"}`},
			map[string]any{"type": "function_call", "namespace": "mcp__docs", "name": "search", "arguments": `{"q":"x"}`, "call_id": "call_1"},
			`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"mcp__docs__search","arguments":"{\"q\":\"x\"}"}}]}`},
		{"custom", "apply_patch", []string{`{"input":"*** Begin`, ` Patch\n\"q\""}`},
			map[string]any{"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch\n\"q\"", "call_id": "call_1"},
			`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"apply_patch","arguments":"{\"input\":\"*** Begin Patch\\n\\\"q\\\"\"}"}}]}`},
		{"custom written bare", "apply_patch", []string{`*** Begin Patch`},
			map[string]any{"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch", "call_id": "call_1"},
			`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"apply_patch","arguments":"*** Begin Patch"}}]}`},
		{"tool search", "tool_search", []string{`{"query":"cal"}`},
			map[string]any{"type": "tool_search_call", "execution": "client", "arguments": map[string]any{"query": "cal"}, "call_id": "call_1"},
			`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"tool_search","arguments":"{\"query\":\"cal\"}"}}]}`},
		{"tool search, arguments not an object", "tool_search", []string{`"cal"`},
			map[string]any{"type": "tool_search_call", "execution": "client", "arguments": map[string]any{}, "call_id": "call_1"},
			`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"tool_search","arguments":"\"cal\""}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var kept responses.Finished
			e := newEncoder(t, body, nil, &kept)
			if err := e.ToolCall(loop.ToolCallDelta{Index: 0, ID: "call_1", Name: tt.flat}); err != nil {
				t.Fatal(err)
			}
			for _, a := range tt.args {
				if err := e.ToolCall(loop.ToolCallDelta{Index: 0, Arguments: a}); err != nil {
					t.Fatal(err)
				}
			}
			if err := e.Finish("tool_calls"); err != nil {
				t.Fatal(err)
			}
			if err := e.Done(); err != nil {
				t.Fatal(err)
			}
			out := output(t, e)
			if len(out) != 1 {
				t.Fatalf("output %v, want one item", out)
			}
			got := map[string]any{}
			for k := range tt.want {
				got[k] = out[0][k]
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("item (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{tt.kept}, strs(kept.Messages)); diff != "" {
				t.Errorf("kept messages (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{tt.kept}, strs(kept.Items[out[0]["id"].(string)])); diff != "" {
				t.Errorf("restore of the item (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzAgentCallItems feeds the arguments a model may write for a custom
// tool and for tool_search: the response is JSON, a custom call's input
// is the string the model gave as input (when it wrote {"input": …}),
// and a tool search's arguments are always an object.
func FuzzAgentCallItems(f *testing.F) {
	for _, s := range []string{`{"input":"*** Begin Patch\n"}`, `{"query":"x"}`, `bare text`, `{}`, `[]`, `{"input":1}`, `{"a":"b","c":"d"}`, "\xff", `null`} {
		f.Add(s)
	}
	const body = `{"model":"m","input":"go","tools":[{"type":"custom","name":"p"},{"type":"tool_search"}]}`
	f.Fuzz(func(t *testing.T, args string) {
		for _, name := range []string{"p", "tool_search"} {
			var kept responses.Finished
			e := newEncoder(t, body, nil, &kept)
			for _, d := range []loop.ToolCallDelta{{Index: 0, ID: "c", Name: name}, {Index: 0, Arguments: args}} {
				if err := e.ToolCall(d); err != nil {
					t.Fatal(err)
				}
			}
			if err := e.Done(); err != nil {
				t.Fatal(err)
			}
			out := output(t, e) // fails on a response that is not JSON
			if len(out) != 1 {
				t.Fatalf("output %v", out)
			}
			switch name {
			case "p":
				var in struct{ Input *string }
				if json.Unmarshal([]byte(args), &in) == nil && in.Input != nil && utf8.ValidString(*in.Input) && out[0]["input"] != *in.Input {
					t.Errorf("input %q, want %q", out[0]["input"], *in.Input)
				}
			default:
				if _, ok := out[0]["arguments"].(map[string]any); !ok {
					t.Errorf("arguments %v, want an object", out[0]["arguments"])
				}
			}
		}
	})
}
