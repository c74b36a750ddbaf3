package messages

import (
	"errors"
	"net/http"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/proxy/internal/exchange"
	"github.com/toolstream/toolstream/toolhost/clip"
)

// errorAnswer is how an error looks to a client of the Messages route:
// Anthropic's status, and its body. The proxy stays the one place that
// decides what an error is (ae); its status is then mapped to the ones
// Anthropic answers with, which its SDKs and Claude Code act on: 529
// overloaded_error for an upstream (or a proxy shutting down) that cannot
// take the turn now, 504 timeout_error, 500 api_error for any other
// failure on this side; client errors keep their status.
func errorAnswer(err error, ae exchange.Error) (status int, body []byte) {
	var me *Error
	if errors.As(err, &me) {
		return http.StatusBadRequest, ErrorBody(TypeInvalidRequest, me.Message)
	}
	status = anthropicStatus(ae.Status)
	message := ae.Message
	switch {
	case errors.Is(err, exchange.ErrUnauthorized):
		message = "invalid x-api-key: send a client key of this proxy as \"x-api-key: <key>\" or \"Authorization: Bearer <key>\""
	case ae.Raw != nil:
		// An upstream's own OpenAI-shaped body: its message is what the
		// client needs to read.
		message = string(fastjson.GetBytes(ae.Raw, "error", "message"))
		if message == "" {
			message = clip.Excerpt(ae.Raw, 300)
		}
	}
	return status, ErrorBody(ErrorType(status), message)
}

// anthropicStatus maps a status to one Anthropic answers with.
func anthropicStatus(status int) int {
	switch {
	case status == http.StatusServiceUnavailable || status == StatusOverloaded:
		return StatusOverloaded
	case status == http.StatusGatewayTimeout || status == exchange.StatusClientClosed:
		return status
	case status >= 500:
		return http.StatusInternalServerError
	}
	return status
}
