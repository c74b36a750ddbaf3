package loop

import "testing"

// TestRejectsTools: the refusals real servers send when they cannot take
// native tools start the text-mode fallback; other errors do not.
func TestRejectsTools(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   bool
	}{
		{"Ollama", 400, `{"error":{"message":"registry.ollama.ai/library/gemma2:2b does not support tools","type":"api_error","param":null,"code":null}}`, true},
		{"vLLM without a tool parser", 400, `{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}`, true},
		{"llama.cpp without --jinja", 400, `{"error":{"code":400,"message":"tools param requires --jinja flag","type":"invalid_request_error"}}`, true},
		{"a 422 about function calling", 422, `{"detail":"function calling is not enabled for this model"}`, true},
		{"OpenRouter, no provider takes tools", 404, `{"error":{"message":"No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing","code":404}}`, true},
		{"a 404 for a model named after tools", 404, `{"error":{"message":"model 'toolformer' not found","type":"invalid_request_error"}}`, false},
		{"a 400 about something else", 400, `{"error":{"message":"max_tokens must be at least 1"}}`, false},
		{"a 500 naming tools", 500, `{"error":{"message":"tool parser crashed"}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := &UpstreamError{Upstream: "u", Status: tc.status, Body: []byte(tc.body)}
			if got := rejectsTools(err); got != tc.want {
				t.Errorf("rejectsTools = %v, want %v", got, tc.want)
			}
		})
	}
}
