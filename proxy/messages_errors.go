package proxy

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/proxy/messages"
	"github.com/toolstream/toolstream/toolhost/clip"
)

// anthropicError is how an error looks to a client of the Messages route:
// Anthropic's status, type and message. toAPIError stays the one place
// that decides what an error is; its status is then mapped to the ones
// Anthropic answers with, which its SDKs and Claude Code act on: 529
// overloaded_error for an upstream (or a proxy shutting down) that cannot
// take the turn now, 504 timeout_error, 500 api_error for any other
// failure on this side; client errors keep their status.
func anthropicError(err error) (status int, kind, message string, header http.Header) {
	var me *messages.Error
	if errors.As(err, &me) {
		return http.StatusBadRequest, messages.TypeInvalidRequest, me.Message, nil
	}
	ae := toAPIError(err)
	status = anthropicStatus(ae.Status)
	message = ae.Message
	switch {
	case errors.Is(err, errUnauthorized):
		message = "invalid x-api-key: send a client key of this proxy as \"x-api-key: <key>\" or \"Authorization: Bearer <key>\""
	case ae.Raw != nil:
		// An upstream's own OpenAI-shaped body: its message is what the
		// client needs to read.
		message = string(fastjson.GetBytes(ae.Raw, "error", "message"))
		if message == "" {
			message = clip.Excerpt(ae.Raw, 300)
		}
	}
	return status, messages.ErrorType(status), message, ae.Header
}

// anthropicStatus maps a status to one Anthropic answers with.
func anthropicStatus(status int) int {
	switch {
	case status == http.StatusServiceUnavailable || status == messages.StatusOverloaded:
		return messages.StatusOverloaded
	case status == http.StatusGatewayTimeout || status == statusClientClosed:
		return status
	case status >= 500:
		return http.StatusInternalServerError
	}
	return status
}

// messagesErrorBody is err as the body of an error response or event, the
// config's secrets masked wherever the message came from.
func (s *Server) messagesErrorBody(c echo.Context, err error) []byte {
	_, kind, msg, _ := anthropicError(err)
	return s.stateOf(c).mask.Bytes(messages.ErrorBody(kind, msg))
}

// writeMessagesError answers a Messages request that has not started its
// response.
func (s *Server) writeMessagesError(c echo.Context, err error) {
	status, kind, msg, header := anthropicError(err)
	if status == statusClientClosed {
		return
	}
	for k, vs := range header {
		c.Response().Header()[k] = vs
	}
	_ = c.JSONBlob(status, s.stateOf(c).mask.Bytes(messages.ErrorBody(kind, msg)))
}
