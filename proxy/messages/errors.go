package messages

import "fmt"

// Error is a Messages request refused before anything is sent upstream:
// HTTP 400, invalid_request_error. Its message reads as Anthropic's do,
// the field's path first ("max_tokens: Field required"), because clients
// such as Claude Code show it as it is.
type Error struct {
	// Param is the path of the offending field, Anthropic style
	// ("messages.1.content.0.type"); "" when the body as a whole is wrong.
	Param string
	// Message is the whole message for the client, Param included.
	Message string
}

// Error returns the message for the client.
func (e *Error) Error() string { return e.Message }

func invalid(param, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if param != "" {
		msg = param + ": " + msg
	}
	return &Error{Param: param, Message: msg}
}
