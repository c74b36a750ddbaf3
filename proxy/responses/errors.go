package responses

import "fmt"

// Error is a Responses request refused before anything is sent upstream:
// HTTP 400 with OpenAI's invalid_request_error, the same shape the chat
// route answers with, so one error writer serves both routes.
type Error struct {
	// Param names the offending field as OpenAI does ("input[2].content[0].type",
	// "tools[1].type"); "" when the body as a whole is wrong.
	Param string
	// Code is OpenAI's machine-readable code, such as "unsupported_input"
	// or "unsupported_parameter"; "" is written as null.
	Code string
	// Message says what is wrong and how to fix it.
	Message string
}

// Error returns the message for the client.
func (e *Error) Error() string { return e.Message }

// Codes this package sets on [Error].
const (
	// CodeUnsupportedParameter is a field that would change the answer
	// and is not built (background, conversation, prompt).
	CodeUnsupportedParameter = "unsupported_parameter"
	// CodeUnsupportedInput is an input this proxy can neither pass on
	// faithfully nor drop without changing the answer: an image outside
	// a user message or by file_id. What
	// can be dropped is left out instead (Request.LeftOut).
	CodeUnsupportedInput = "unsupported_input"
	// CodeUnknownItem is an mcp_call or mcp_approval_request item sent
	// back that no stored response of the client's key answered with, or
	// an mcp_approval_response naming no approval request of the key: it
	// cannot be restored or decided, and is never run.
	CodeUnknownItem = "unknown_item"
)

func invalid(param, format string, args ...any) *Error {
	return &Error{Param: param, Message: fmt.Sprintf(format, args...)}
}

func unsupported(param, code, format string, args ...any) *Error {
	return &Error{Param: param, Code: code, Message: fmt.Sprintf(format, args...)}
}
