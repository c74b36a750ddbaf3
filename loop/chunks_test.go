package loop

import (
	"encoding/json"
	"testing"

	"github.com/valyala/fastjson"
)

func TestBlank(t *testing.T) {
	tests := []struct {
		delta   string
		visible string
		want    bool
	}{
		{`{}`, "", true},
		{`{"content":""}`, "", true},
		{`{"content":"","reasoning_content":null}`, "", true},
		{`{"content":"x"}`, "x", false},
		{`{"content":"<tool_call>…"}`, "", true},
		{`{"reasoning_content":"thinking"}`, "", false},
		{`{"role":"assistant"}`, "", false},
		{`{"tool_calls":[]}`, "", false},
	}
	for _, tt := range tests {
		var p fastjson.Parser
		v, _ := p.Parse(tt.delta)
		if got := blank(v, tt.visible); got != tt.want {
			t.Errorf("blank(%s, %q) = %v, want %v", tt.delta, tt.visible, got, tt.want)
		}
	}
}

func TestCollector(t *testing.T) {
	c := &Collector{Events: true}
	for _, ch := range []string{
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_content":"hm"},"finish_reason":null}]}`,
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}`,
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","choices":[{"index":0,"delta":{}}],"toolstream":{"event":"tool.started","name":"t","round":1}}`,
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}`,
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"client_tool","arguments":""}}]},"finish_reason":null}]}`,
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]},"finish_reason":null}]}`,
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`,
	} {
		if err := c.Send([]byte(ch)); err != nil {
			t.Fatal(err)
		}
	}
	c.Done()
	want := `{"id":"x1","object":"chat.completion","created":5,"model":"m","choices":[{"finish_reason":"tool_calls","index":0,"logprobs":null,"message":{"content":"Hello","reasoning_content":"hm","role":"assistant","tool_calls":[{"id":"call_a","type":"function","function":{"name":"client_tool","arguments":"{\"a\":1}"}}]}}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3},"system_fingerprint":"fp","toolstream":{"events":[{"event":"tool.started","name":"t","round":1}]}}`
	if got := string(c.Completion()); got != want {
		t.Errorf("Completion\n got %s\nwant %s", got, want)
	}
}

// TestEventFields: tool events always carry call_id and name (docs/stream.md),
// even for a block too malformed to name its tool; other events do not.
func TestEventFields(t *testing.T) {
	tests := []struct {
		ev   Event
		want string
	}{
		{Event{Event: "tool.started", CallID: "call_1", Round: 1},
			`{"event":"tool.started","call_id":"call_1","name":"","round":1}`},
		{Event{Event: "tool.finished", CallID: "call_1", Name: "t", Round: 2, Status: "ok", Result: json.RawMessage(`{"a":1}`)},
			`{"event":"tool.finished","call_id":"call_1","name":"t","round":2,"status":"ok","result":{"a":1}}`},
		{Event{Event: "round.started", Round: 2}, `{"event":"round.started","round":2}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.ev)
		if err != nil || string(got) != tt.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tt.ev, got, err, tt.want)
		}
	}
}
