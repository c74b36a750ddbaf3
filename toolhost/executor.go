package toolhost

import (
	"context"
	"encoding/json"
)

// Executor runs one validated call of a tool: a webhook (this package), an
// MCP server's tool (toolhost/mcp). Everything a tool is subject to — the audit
// log, approvals, argument validation, retries of a whole turn — happens in
// [Host.Execute] before and after it, the same for every kind.
//
// Execute reports every failure of the tool in Outcome.Err and never
// blocks past ctx; it must not retry a call unless the tool is idempotent.
type Executor interface {
	Execute(ctx context.Context, call Call, args json.RawMessage) Outcome
}

// Outcome is what an [Executor] made of a call.
type Outcome struct {
	// Content is the result: JSON text when IsJSON, else plain text.
	Content string
	IsJSON  bool
	// Truncated says Content was cut at the tool's max_result_bytes; the
	// note saying so is part of Content.
	Truncated bool
	// Err is set when the tool failed.
	Err *ToolError
	// Attempts counts requests sent (retries of an idempotent tool).
	Attempts int
	// Sent says the tool got the call, or may have: a webhook request
	// was written in full. A call cut after that (the client left, a
	// shutdown) may have acted, so it is on record outcome_unknown; one
	// cut before it is cancelled and not executed. An executor that
	// cannot tell sets it once it may have sent anything.
	Sent bool
}

// Failure is the Outcome of a call that failed with code.
func Failure(code, message string) Outcome {
	return Outcome{Err: &ToolError{Code: code, Message: message}}
}
