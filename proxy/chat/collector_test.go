package chat

import (
	"encoding/json"
	"testing"

	"github.com/toolstream/toolstream/loop"
)

func TestCollector(t *testing.T) {
	c := &Collector{Events: true}
	if c.Takes().Chunks {
		t.Fatal("the Collector takes chunks; want typed events")
	}
	c.Begin(loop.Begin{ID: "x1", Created: 5, Model: "m"})
	c.Meta(loop.Meta{Fingerprint: "fp", Content: true, ReasoningContent: true})
	must(t, c.Reasoning("hm"))
	c.Meta(loop.Meta{Content: true})
	must(t, c.Text("Hel"))
	must(t, c.Event(&loop.Event{Event: "tool.started", CallID: "c1", Name: "t", Round: 1}))
	c.Meta(loop.Meta{Fingerprint: "other", Content: true})
	must(t, c.Text("lo"))
	c.Meta(loop.Meta{})
	must(t, c.ToolCall(loop.ToolCallDelta{Index: 0, ID: "call_a", Name: "client_tool"}))
	c.Meta(loop.Meta{})
	must(t, c.ToolCall(loop.ToolCallDelta{Index: 0, Arguments: `{"a":1}`}))
	c.Meta(loop.Meta{})
	must(t, c.Finish("tool_calls"))
	must(t, c.Usage(json.RawMessage(`{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}`)))
	must(t, c.Done())
	want := `{"id":"x1","object":"chat.completion","created":5,"model":"m","choices":[{"finish_reason":"tool_calls","index":0,"logprobs":null,"message":{"content":"Hello","reasoning_content":"hm","role":"assistant","tool_calls":[{"id":"call_a","type":"function","function":{"name":"client_tool","arguments":"{\"a\":1}"}}]}}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3},"system_fingerprint":"fp","toolstream":{"events":[{"event":"tool.started","call_id":"c1","name":"t","round":1}]}}`
	if got := string(c.Completion()); got != want {
		t.Errorf("Completion\n got %s\nwant %s", got, want)
	}
}

// TestCollectorEmptyFields: content that was there though empty is "", and
// each reasoning field the upstream named is kept apart, empty or not.
func TestCollectorEmptyFields(t *testing.T) {
	c := &Collector{}
	c.Begin(loop.Begin{ID: "x1", Created: 5, Model: "m"})
	c.Meta(loop.Meta{Content: true, ReasoningContent: true, Reasoning: true, ReasoningText: "r"})
	must(t, c.Finish("stop"))
	want := `{"id":"x1","object":"chat.completion","created":5,"model":"m","choices":[{"finish_reason":"stop","index":0,"logprobs":null,"message":{"content":"","reasoning":"r","reasoning_content":"","role":"assistant"}}]}`
	if got := string(c.Completion()); got != want {
		t.Errorf("Completion\n got %s\nwant %s", got, want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
