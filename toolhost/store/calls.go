package store

import (
	"context"
	"encoding/json"
	"time"
)

// Call statuses in the audit log. A call is written StatusStarted before
// its executor runs and updated once it finished; a call that failed
// before any executor ran (unknown tool, bad arguments, denied) is written
// once with its final status. A call that waits for an approval is
// written StatusPendingApproval first, so a process that dies during the
// wait leaves it on record; the next start marks it StatusExpired (it
// never ran).
const (
	StatusPendingApproval = "pending_approval"
	StatusExpired         = "expired"
	StatusStarted         = "started"
	StatusOK              = "ok"
	StatusError           = "error"
	StatusDenied          = "denied"
	StatusCancelled       = "cancelled"
	StatusOutcomeUnknown  = "outcome_unknown"
)

// CallRecord is one tool call in the audit log (GET /admin/calls).
type CallRecord struct {
	// ID is the record's own id ("tcr_…"); call ids from upstreams are not
	// unique across turns, so they are not the key.
	ID     string `json:"id"`
	TurnID string `json:"turn_id"`
	CallID string `json:"call_id"`
	Round  int    `json:"round,omitempty"`
	Model  string `json:"model,omitempty"`
	Tool   string `json:"tool"`
	// Arguments are the coerced arguments with the tool's redact fields
	// masked ("[redacted]"); the model's own text when they never parsed.
	Arguments json.RawMessage `json:"arguments"`
	// ProposedArguments are the model's arguments, redacted alike, when an
	// approver changed them: Arguments are then the ones that ran.
	ProposedArguments json.RawMessage `json:"proposed_arguments,omitempty"`
	// Status is one of the Status constants.
	Status string `json:"status"`
	// ErrorCode is the tool error code (TOOL_NOT_FOUND, DENIED, …); empty
	// when the call succeeded or has not finished.
	ErrorCode string `json:"error_code"`
	// ErrorMessage is what the model was told; empty likewise.
	ErrorMessage  string     `json:"error_message,omitempty"`
	ResultExcerpt string     `json:"result_excerpt"`
	DurationMS    int64      `json:"duration_ms"`
	StartedAt     time.Time  `json:"started_at"`
	FinishedAt    *time.Time `json:"finished_at"`
	// KeyID identifies the client key of the turn ([KeyID]); empty when
	// the proxy runs without keys.
	KeyID string `json:"key_id"`
	// Source is the route that made the call: chat, responses, messages
	// or mcp; empty for records written before it was kept.
	Source string `json:"source"`
	// MCPServer is the label of the MCP server the request named itself
	// that the tool came from (a Responses mcp tool's server_label, a
	// Messages mcp_servers entry's name); empty for every other tool.
	// Its URL and credentials are never kept.
	MCPServer string `json:"mcp_server,omitempty"`
	// Executed says an executor was started: the tool may have acted.
	Executed bool `json:"executed"`
	// Approval says how the call was let through or stopped; nil for a
	// tool with approval: never.
	Approval *Decision `json:"approval,omitempty"`
	// Policy names the policies rule that decided the call (denied it,
	// held it for approval, or allowed it); empty when none matched.
	Policy string `json:"policy,omitempty"`
	// Instance is the process that holds a started call; a restart marks
	// its own started calls outcome_unknown ([Lifecycle.Recover]).
	Instance string `json:"instance,omitempty"`
	// Attempt is the retry group of the turn ([Replay]); empty when none.
	Attempt string `json:"attempt,omitempty"`
}

// Replay is one call of an attempt of a turn, kept for a short while so a
// retry of the same turn can feed back its result instead of running it
// again (docs/approvals-and-audit.md). Unlike the audit record it
// holds the whole result and the hash of the unredacted arguments.
type Replay struct {
	AuditID string `json:"audit_id"`
	// TurnID is the turn that ran the call: a turn never replays its own
	// calls, only an earlier attempt's.
	TurnID string `json:"turn_id"`
	Tool   string `json:"tool"`
	// ArgsHash is the hex SHA-256 of the canonical (coerced) arguments.
	ArgsHash string `json:"args_hash"`
	// Status is StatusStarted until the call finished, then its status.
	Status  string `json:"status"`
	Content string `json:"content,omitempty"`
	IsJSON  bool   `json:"is_json,omitempty"`
	// ErrorCode and ErrorMessage repeat a failed call's tool error.
	ErrorCode    string    `json:"error_code,omitempty"`
	ErrorMessage string    `json:"error_message,omitempty"`
	StartedAt    time.Time `json:"started_at"`
}

// AttemptRef files a call under its turn's retry group. TTL bounds how
// long a retry can find it, counted from Replay.StartedAt (the call's
// StartedAt when zero): 10 minutes for a group made from the body, longer
// for an Idempotency-Key. Attempt must pass [ValidName].
type AttemptRef struct {
	Attempt string
	TTL     time.Duration
	// Also, when set, files the call under a second retry group, for
	// AlsoTTL: a turn with an Idempotency-Key is filed under its body's
	// group too, so that a retry recognised by its body alone finds it.
	// That copy is updated with the first; Recover marks only the first
	// outcome_unknown, and a copy left started reads the same to a retry.
	Also    string
	AlsoTTL time.Duration
	Replay  Replay
}

// CallQuery selects audit records, newest first.
type CallQuery struct {
	// Tool and Status filter when not empty.
	Tool, Status string
	// Limit bounds the page; zero or less means 50, more than 500 is 500.
	Limit int
	// Before is the cursor of the previous page's Next; empty starts at
	// the newest record.
	Before string
}

// Page sizes of [CallStore.Calls] and [ActionStore.Actions].
const (
	DefaultCallPage   = 50
	MaxCallPage       = 500
	DefaultActionList = 100
)

// PageSize is q.Limit as every backend reads it: [DefaultCallPage] when
// zero or less, at most [MaxCallPage].
func (q CallQuery) PageSize() int {
	switch {
	case q.Limit <= 0:
		return DefaultCallPage
	case q.Limit > MaxCallPage:
		return MaxCallPage
	}
	return q.Limit
}

// CallStore is the audit log of tool calls, and the replay entries that
// let a retried turn find its earlier attempt's calls.
type CallStore interface {
	// StartCall writes rec (Status started) and, when ref is not nil, its
	// replay entry, in one transaction that is durable when StartCall
	// returns: a process crash right after it still finds the record.
	// Audit records expire storage.audit_retention after StartedAt (now
	// when zero); updates keep that expiry. With a ref, rec.Attempt is
	// set from it when empty.
	StartCall(ctx context.Context, rec CallRecord, ref *AttemptRef) error
	// FinishCall replaces a started record with its final state and
	// updates its replay entry (ref may be nil). ErrNotFound when the
	// record is gone.
	FinishCall(ctx context.Context, rec CallRecord, ref *AttemptRef) error
	// RecordCall writes a call that never reached an executor, final as
	// it is.
	RecordCall(ctx context.Context, rec CallRecord) error
	// Call returns one audit record by id.
	Call(ctx context.Context, id string) (CallRecord, bool, error)
	// Calls returns a page of the audit log, newest first, and the cursor
	// of the next page ("" when this is the last). A Before that is not
	// such a cursor fails with ErrBadCursor.
	Calls(ctx context.Context, q CallQuery) ([]CallRecord, string, error)
	// Replays returns the calls filed under attempt, oldest first.
	Replays(ctx context.Context, attempt string) ([]Replay, error)
}
