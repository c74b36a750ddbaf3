package messages_test

import (
	"testing"

	"github.com/toolstream/toolstream/proxy/messages"
)

// TestErrorType maps statuses to Anthropic's error types as its API and
// SDKs name them.
func TestErrorType(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]string{
		400: "invalid_request_error", 401: "authentication_error", 402: "billing_error",
		403: "permission_error", 404: "not_found_error", 408: "invalid_request_error",
		409: "invalid_request_error", 413: "request_too_large", 422: "invalid_request_error",
		429: "rate_limit_error", 500: "api_error", 501: "api_error", 502: "api_error",
		503: "overloaded_error", 504: "timeout_error", 529: "overloaded_error",
	} {
		if got := messages.ErrorType(status); got != want {
			t.Errorf("ErrorType(%d) = %q, want %q", status, got, want)
		}
	}
}

// TestErrorBody writes Anthropic's error shape, text unescaped.
func TestErrorBody(t *testing.T) {
	t.Parallel()
	got := string(messages.ErrorBody(messages.TypeInvalidRequest, `max_tokens: Field required <&> "q"`))
	want := `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required <&> \"q\""}}`
	if got != want {
		t.Errorf("ErrorBody:\n got %s\nwant %s", got, want)
	}
	r, err := messages.ToChat([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	if err == nil {
		t.Fatalf("accepted a request without max_tokens: %s", r.Chat)
	}
	got = string(messages.ErrorBody(messages.ErrorType(400), err.Error()))
	want = `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}`
	if got != want {
		t.Errorf("the refusal of a request without max_tokens:\n got %s\nwant %s", got, want)
	}
}
