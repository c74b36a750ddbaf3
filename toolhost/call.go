// Package toolhost holds toolstream's server tools: the registry of config
// tools, MCP servers' tools (toolhost/mcp connects and registers them) and
// runtime tools from the admin API, which with approvals are kept in step
// with other replicas through the store's change feed; argument coercion
// and JSON Schema validation; what every call goes through whatever runs
// it (approvals, the audit log, progress, finding a retried turn's earlier
// calls); and the webhook executor, with Standard Webhooks signing and the
// guard on where runtime webhooks may point. Durable state (audit log,
// approvals, runtime tools) lives in toolhost/store.
//
// A tool failing is not an error of the turn: [Host.Execute] reports it as a
// [Result] with Err set, which the model reads and can correct
// (docs/webhooks.md).
package toolhost

import (
	"encoding/json"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

// Error codes a tool result can carry (docs/tool-calls.md, docs/webhooks.md).
// They are part of the contract: the model reads them and apps match on them.
const (
	CodeToolNotFound     = "TOOL_NOT_FOUND"
	CodeMissingParameter = "MISSING_PARAMETER"
	CodeInvalidParameter = "INVALID_PARAMETER"
	CodeAPIError         = "API_ERROR"
	CodeTimeout          = "TIMEOUT"
	CodeExecutionFailed  = "EXECUTION_FAILED"
	CodeDenied           = "DENIED"
	CodeParseError       = "PARSE_ERROR"
	CodeCancelled        = "CANCELLED"
	// CodeRoundLimit answers a call written in a turn's last round, which
	// is sent without tools once loop.max_rounds or loop.parse_retries is
	// spent: it is not run, and the turn ends (docs/tool-calls.md).
	CodeRoundLimit = "ROUND_LIMIT"
	// CodeOutcomeUnknown answers a call of a retried turn that an earlier
	// attempt started but never saw finish: it may have run, so it is not
	// run again (docs/approvals-and-audit.md).
	CodeOutcomeUnknown = "OUTCOME_UNKNOWN"
)

// Approval settings of a tool (docs/approvals-and-audit.md).
const (
	ApprovalNever  = "never"
	ApprovalAlways = "always"
	ApprovalAdmin  = "admin"
)

// Statuses of a finished call, as shown in tool.finished events.
const (
	StatusOK        = "ok"
	StatusError     = "error"
	StatusDenied    = "denied"
	StatusCancelled = "cancelled"
	// StatusAwaiting is a call parked for approval (Origin.Park): not
	// run, not finished, its action pending. The turn ends on it, and
	// the client's next request resumes it (Call.Action).
	StatusAwaiting = "awaiting_approval"
)

// Tool is a server tool: what the model sees of it, and the rules its
// calls are held to whatever runs them.
type Tool struct {
	// Name is what the model calls.
	Name string
	// Description tells the model what the tool does.
	Description string
	// Parameters is the tool's JSON Schema, as JSON.
	Parameters json.RawMessage
	// Approval is never (the default when empty), always or admin.
	Approval string
	// Idempotent says a call may be sent again: retried on connect errors
	// and 502/503/504, and run again in a retried turn when the earlier
	// attempt's outcome is unknown.
	Idempotent bool
	// Redact names argument fields masked in the audit log and in
	// approvals, at any depth of the arguments.
	Redact []string
	// Source is SourceConfig (the default when empty), SourceRuntime or
	// SourceMCPPrefix + server.
	Source string
}

// Call is one tool call to run.
type Call struct {
	// ID is the call id ("call_" + 24 alphanumerics, or the upstream's own
	// id in native mode). It is also the webhook-id, stable across retries.
	ID string
	// Name is the tool the model named.
	Name string
	// Arguments is a JSON object as the model wrote it. Text formats give
	// every value as a string; coercion by the tool's schema happens in
	// Execute.
	Arguments json.RawMessage
	// TurnID, Round and Model describe where the call came from; they are
	// sent to the webhook.
	TurnID string
	Round  int
	Model  string
	// Origin is who asked for the call: the same for every call of a
	// turn. Nil means no client key, nothing pre-approved, no retry.
	Origin *Origin
	// Progress hears what happens to the call before its result (the
	// approval it waits for, and the tool's progress when it is also a
	// [ProgressReporter]); nil hears nothing.
	Progress Progress
	// Action resumes a call parked earlier (Origin.Park): the id of the
	// action it waits on. The call is not asked about again: it runs when
	// the action is approved, is denied when it is denied or expired, and
	// waits for it while it is pending. Its audit record is the one the
	// parked call left.
	Action string
}

// Progress hears of a call's approval while the call waits. The loop shows
// it on the client's stream. Methods are called from the call's own
// goroutine and must not block for long.
type Progress interface {
	// ApprovalRequested: the call waits for a decision on a.
	ApprovalRequested(call Call, a store.Action)
	// ApprovalResolved: a was decided (approved, denied) or expired.
	ApprovalResolved(call Call, a store.Action)
}

// Result is the outcome of one call, fed back to the model.
type Result struct {
	// CallID and Name repeat the call's.
	CallID string
	Name   string
	// Arguments are the arguments after coercion (the call's own when
	// coercion did not get that far).
	Arguments json.RawMessage
	// Content is the result body: JSON text when IsJSON, else plain text.
	// Empty when Err is set.
	Content string
	IsJSON  bool
	// Truncated says Content was cut at the tool's max_result_bytes; the
	// note saying so is already part of Content.
	Truncated bool
	// Err is set when the tool failed; the model reads it.
	Err *ToolError
	// Status is StatusOK, StatusError, StatusDenied or StatusCancelled.
	Status string
	// Duration is the wall time of the call from when it could run: after
	// its approval, when it waited for one (the wait is not the call's).
	Duration time.Duration
	// Executed says the tool's executor was called (a webhook request, an
	// MCP call); false for a call refused by validation, denied, not
	// approved in time, replayed from an earlier attempt, or cancelled
	// before it started.
	Executed bool
	// Edited says a person approved the call with other arguments than
	// the model's: Arguments are theirs, and Content (or Err's message)
	// opens with a note telling the model so.
	Edited bool
	// RunTime is the executor's part of Duration; zero unless Executed.
	// It is what a tool's latency is measured by: the audit and the
	// client's checks around it are not the tool's.
	RunTime time.Duration
}

// ToolError is a failure the model reads and can correct.
type ToolError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Param is the parameter at fault of an INVALID_PARAMETER or
	// MISSING_PARAMETER ("amount", "filter.from"; the first one when
	// several are), for an API that names it; the message names them all.
	Param string `json:"-"`
	// Detail is for the log only: the underlying error with addresses
	// and ports, which the model, the client and the audit log never see
	// (they read Message).
	Detail string `json:"-"`
}

// Error returns "CODE: message".
func (e *ToolError) Error() string { return e.Code + ": " + e.Message }

// ErrorResult builds the result of a call that failed with code before or
// during execution.
func ErrorResult(call Call, code, message string) Result {
	status := StatusError
	switch code {
	case CodeDenied, CodePolicyDenied:
		status = StatusDenied
	case CodeCancelled:
		status = StatusCancelled
	}
	return Result{
		CallID:    call.ID,
		Name:      call.Name,
		Arguments: call.Arguments,
		Err:       &ToolError{Code: code, Message: message},
		Status:    status,
	}
}
