package chat

import "testing"

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
		if err := c.Raw([]byte(ch)); err != nil {
			t.Fatal(err)
		}
	}
	c.Done()
	want := `{"id":"x1","object":"chat.completion","created":5,"model":"m","choices":[{"finish_reason":"tool_calls","index":0,"logprobs":null,"message":{"content":"Hello","reasoning_content":"hm","role":"assistant","tool_calls":[{"id":"call_a","type":"function","function":{"name":"client_tool","arguments":"{\"a\":1}"}}]}}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3},"system_fingerprint":"fp","toolstream":{"events":[{"event":"tool.started","name":"t","round":1}]}}`
	if got := string(c.Completion()); got != want {
		t.Errorf("Completion\n got %s\nwant %s", got, want)
	}
}
