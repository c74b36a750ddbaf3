package messages_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/toolstream/toolstream/proxy/internal/exchange"
	"github.com/toolstream/toolstream/proxy/messages"
)

// TestErrorAnswer maps the proxy's decision about an error to the status
// and body Anthropic answers with: its own statuses for a server side
// that cannot take the turn, the upstream's own message, the Messages
// wording of a missing key, and a refusal of the request as it is.
func TestErrorAnswer(t *testing.T) {
	t.Parallel()
	p := &messages.Protocol{}
	for _, tc := range []struct {
		name   string
		err    error
		ae     exchange.Error
		status int
		body   string
	}{
		{"overloaded", errors.New("x"), exchange.Error{Status: 503, Message: "busy"}, 529,
			`{"type":"error","error":{"type":"overloaded_error","message":"busy"}}`},
		{"timeout", errors.New("x"), exchange.Error{Status: 504, Message: "slow"}, 504,
			`{"type":"error","error":{"type":"timeout_error","message":"slow"}}`},
		{"a 502 is an api_error", errors.New("x"), exchange.Error{Status: 502, Message: "broke"}, 500,
			`{"type":"error","error":{"type":"api_error","message":"broke"}}`},
		{"client gone", errors.New("x"), exchange.Error{Status: exchange.StatusClientClosed}, exchange.StatusClientClosed, ""},
		{"upstream's own body", errors.New("x"), exchange.Error{Status: 429, Raw: []byte(`{"error":{"message":"slow down"}}`)}, 429,
			`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`},
		{"key", fmt.Errorf("auth: %w", exchange.ErrUnauthorized), exchange.Error{Status: 401, Message: "Incorrect"}, 401,
			`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key: send a client key of this proxy as \"x-api-key: <key>\" or \"Authorization: Bearer <key>\""}}`},
		{"refused request", &messages.Error{Message: "max_tokens: Field required"}, exchange.Error{Status: 500}, 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}`},
	} {
		status, body := p.ErrorAnswer(tc.err, tc.ae)
		if status != tc.status || (tc.body != "" && string(body) != tc.body) {
			t.Errorf("%s: %d %s, want %d %s", tc.name, status, body, tc.status, tc.body)
		}
	}
}
