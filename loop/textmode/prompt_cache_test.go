package textmode

import (
	"encoding/json"
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/toolhost"
)

// TestPromptRemembered: a prompt built once is served again for the same
// tools, and any change to a tool — its description, its schema, the
// format — gives that tool set's own prompt, never a remembered one.
func TestPromptRemembered(t *testing.T) {
	tool := toolhost.Tool{Name: "get_weather", Description: "Weather now.", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}
	first := Prompt(detect.Hermes, []toolhost.Tool{tool})
	if again := Prompt(detect.Hermes, []toolhost.Tool{tool}); again != first {
		t.Fatal("the same tools gave another prompt")
	}
	changed := []func(*toolhost.Tool){
		func(t *toolhost.Tool) { t.Description = "Weather tomorrow." },
		func(t *toolhost.Tool) {
			t.Parameters = json.RawMessage(`{"type":"object","properties":{"town":{"type":"string"}}}`)
		},
	}
	for i, change := range changed {
		c := tool
		change(&c)
		if got, want := Prompt(detect.Hermes, []toolhost.Tool{c}), buildPrompt(detect.Hermes, []toolhost.Tool{c}); got != want || got == first {
			t.Errorf("change %d: the prompt is not the changed tool's", i)
		}
	}
	if Prompt(detect.XML, []toolhost.Tool{tool}) == first {
		t.Error("another format gave the remembered prompt")
	}
}

// TestPromptLastBySameBytes: the prompt served last is found again for
// the same tools copied into another slice (as the registry hands them
// out per request), and a tool set with the same text in other bytes, or
// another format, still gets its own.
func TestPromptLastBySameBytes(t *testing.T) {
	tools := []toolhost.Tool{{Name: "add_task", Description: "Add a task.", Parameters: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}}}`)}}
	first := Prompt(detect.Hermes, tools)
	if l := last.Load(); !l.same(detect.Hermes, append([]toolhost.Tool(nil), tools...)) {
		t.Fatal("a copy of the last tools is not found as the last prompt's")
	}
	other := []toolhost.Tool{tools[0]}
	other[0].Parameters = json.RawMessage(`{"type":"object","properties":{"when":{"type":"string"}}}`)
	if got := Prompt(detect.Hermes, other); got == first || got != buildPrompt(detect.Hermes, other) {
		t.Error("changed parameters gave the last prompt")
	}
	same := []toolhost.Tool{{Name: string([]byte("add_task")), Description: "Add a task.", Parameters: json.RawMessage(string(tools[0].Parameters))}}
	if got := Prompt(detect.Hermes, same); got != first {
		t.Error("the same tools in other bytes gave another prompt")
	}
	if Prompt(detect.XML, tools) == first {
		t.Error("another format gave the last prompt")
	}
}
