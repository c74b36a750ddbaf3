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
