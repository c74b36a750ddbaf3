// Package store holds toolstream's durable state behind one interface:
// turn records for history stitching, stored Responses API answers, the
// auto-mode memory, the audit log of tool calls, approvals (actions),
// runtime-registered tools, runtime client keys (by their hashes) and the
// index that lets a retried turn find the calls of its earlier attempt.
//
// The records and the [Store] interface live here; each backend is a
// sub-package (store/badger for one process, store/postgres for replicas) and
// passes the same conformance suite, store/storetest. Consumers (loop,
// toolhost, proxy) declare the few methods they use as their own small
// interfaces; [Store] is their union, for the wiring in cmd.
//
// Records never hold client keys, upstream keys or webhook secrets of
// config tools: only key ids ([KeyID]), names, hashes and what the model
// and the tools exchanged (with each tool's redact fields masked before a
// record is written).
package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Errors every backend returns the same way.
var (
	// ErrClosed is returned by every method called after Close.
	ErrClosed = errors.New("store: closed")
	// ErrNotFound is returned by updates of a record that does not exist
	// (or expired).
	ErrNotFound = errors.New("store: not found")
	// ErrDecided is returned by [Store.DecideAction] when the action is no
	// longer pending: decided already, or expired. The returned Action is
	// the record as it stands.
	ErrDecided = errors.New("store: action already decided")
	// ErrTooLarge is returned when a record is over the backend's limits.
	ErrTooLarge = errors.New("store: record too large")
	// ErrInvalidKey is returned when an id or name that becomes part of a
	// key is empty, too long, or holds bytes outside [ValidName].
	ErrInvalidKey = errors.New("store: invalid id or name")
	// ErrNoSpace is returned by writes refused because the storage's
	// filesystem is (nearly) full, and by opening a store there: the
	// backend stops writing before the disk is full rather than crash.
	ErrNoSpace = errors.New("store: not enough free disk space")
	// ErrWriteFailed is wrapped by Ready's error while writes have been
	// failing recently.
	ErrWriteFailed = errors.New("store: writes failing")
	// ErrBadCursor is returned by [Store.Calls] for a Before that is not a
	// Next it returned: a client's mistake (HTTP 400), not a storage
	// failure.
	ErrBadCursor = errors.New("store: invalid page cursor")
	// ErrExists is returned by [Store.CreateKey] for a name a live key
	// holds: the admin's mistake (HTTP 409), not a storage failure. Keys
	// are created, never silently replaced, so a second create cannot
	// swap the hash of a key clients already use.
	ErrExists = errors.New("store: already exists")
	// ErrUnavailable is wrapped by the errors of a shared backend
	// (PostgreSQL) that cannot reach its database or got no answer in
	// time, and by Ready's error while that lasts: an outage (HTTP 503),
	// not a request's fault. Retrying later may succeed.
	ErrUnavailable = errors.New("store: database unreachable")
)

// DecidedByRestart is the DecidedBy of an action that [Store.Recover]
// expired: the process that waited for its decision is gone.
const DecidedByRestart = "restart"

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

// Action statuses (approvals).
const (
	ActionPending  = "pending"
	ActionApproved = "approved"
	ActionDenied   = "denied"
	ActionExpired  = "expired"
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
	// Executed says an executor was started: the tool may have acted.
	Executed bool `json:"executed"`
	// Approval says how the call was let through or stopped; nil for a
	// tool with approval: never.
	Approval *Decision `json:"approval,omitempty"`
	// Instance is the process that holds a started call; a restart marks
	// its own started calls outcome_unknown ([Store.Recover]).
	Instance string `json:"instance,omitempty"`
	// Attempt is the retry group of the turn ([Replay]); empty when none.
	Attempt string `json:"attempt,omitempty"`
}

// Decision is how an approval ended, on the action and on its call.
type Decision struct {
	// ActionID is the action; empty for a pre-approved call.
	ActionID string `json:"action_id,omitempty"`
	// Decision is "approved", "denied", "expired" or "pre-approved";
	// "pending" on a call record while it waits.
	Decision string `json:"decision"`
	// DecidedBy is the deciding key's id, "timeout", "client-gone" or
	// "shutdown".
	DecidedBy string `json:"decided_by,omitempty"`
	// Reason is the optional reason given with a deny.
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

// Action is an approval waiting for, or past, a decision (GET /v1/actions).
type Action struct {
	ID     string `json:"id"`
	TurnID string `json:"turn_id"`
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	// Arguments are redacted like the audit record's.
	Arguments json.RawMessage `json:"arguments"`
	Status    string          `json:"status"`
	// Approval is the tool's setting: "always" or "admin".
	Approval  string    `json:"approval"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
	// KeyID is the client key that started the turn.
	KeyID     string `json:"key_id"`
	DecidedBy string `json:"decided_by"`
	Reason    string `json:"reason,omitempty"`
	// DecidedAt is set with every status but pending.
	DecidedAt *time.Time `json:"decided_at,omitempty"`
	// AuditID is the call's audit record.
	AuditID  string `json:"audit_id,omitempty"`
	Instance string `json:"instance,omitempty"`
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

// TurnRecord is one turn kept for history stitching (docs/operations.md). The
// client keeps only what it saw; when a later request's history contains that
// assistant message (found by one of Keys), the proxy re-expands it into
// Messages before forwarding, so the model still knows what its tools returned.
type TurnRecord struct {
	// ID is the turn id (chatcmpl-…). It comes from the upstream's
	// chunks, so it may be any non-empty text; backends hash it into keys.
	ID string `json:"id"`
	// Keys are the lookup keys of the turn: "<scope>/fp:<hex>" (a
	// fingerprint of the text the client received), "<scope>/call:<call
	// id>" (a call the client saw, e.g. on a markdown card), where the
	// scope is a digest of the client key's id and the conversation
	// (loop.Scope). To the store they are opaque text. Never a secret.
	Keys []string `json:"keys"`
	// Messages are the turn's full assistant side as the upstream must see
	// it again: the model's text with its tool markup or native calls, and
	// every result. Each is stored as compact JSON.
	Messages []json.RawMessage `json:"messages"`
	// CreatedAt is when the turn was saved; SaveTurn sets it when zero.
	// The record expires storage.turn_retention after it.
	CreatedAt time.Time `json:"created_at"`
}

// ResponseRecord is an answer of the Responses API kept for
// previous_response_id and GET /v1/responses/{id} (docs/http-api.md). It
// holds the conversation as chat messages, server calls and results
// included, so a request that continues it needs no history stitching.
type ResponseRecord struct {
	// ID is the response id ("resp_…").
	ID string `json:"id"`
	// KeyID is the client key that created it ([KeyID]); only that key
	// finds it. Empty when the proxy runs without keys.
	KeyID string `json:"key_id"`
	// Response is the response object as GET /v1/responses/{id} returns
	// it (JSON).
	Response json.RawMessage `json:"response"`
	// Messages are the conversation up to and including this response,
	// as the chat messages an upstream reads (compact JSON): the input's,
	// then the model's rounds with their tool calls and results.
	Messages []json.RawMessage `json:"messages"`
	// Items are the chat messages that stand for each output item, by
	// item id: a client that sends an item back as input (an mcp_call) or
	// names it (an item_reference) gets them in its place. Each id also
	// finds the record ([Store.ResponseByItem]).
	Items map[string][]json.RawMessage `json:"items,omitempty"`
	// CreatedAt is when the response was saved; SaveResponse sets it when
	// zero. The record expires storage.turn_retention after it.
	CreatedAt time.Time `json:"created_at"`
}

// RuntimeTool is a tool registered through /admin/tools. Spec is the tool
// exactly as the admin sent it (the config tools' shape, JSON), so a
// restart rebuilds it the same way; it may hold the tool's webhook secret.
type RuntimeTool struct {
	Name      string          `json:"name"`
	Spec      json.RawMessage `json:"spec"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
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

// Page sizes of [Store.Calls] and [Store.Actions].
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

// ActionQuery selects actions, newest first.
type ActionQuery struct {
	// KeyID keeps the actions of one client key; All ignores it (admin).
	KeyID string
	All   bool
	// Status filters when not empty.
	Status string
	// Limit bounds the list; zero or less means 100.
	Limit int
}

// ListSize is q.Limit as every backend reads it: [DefaultActionList]
// when zero or less.
func (q ActionQuery) ListSize() int {
	if q.Limit <= 0 {
		return DefaultActionList
	}
	return q.Limit
}

// Recovered counts what [Store.Recover] resolved.
type Recovered struct {
	// Calls were started by another instance and are now outcome_unknown.
	Calls int
	// CallsExpired waited for an approval in another instance and are
	// now expired; none of them ran.
	CallsExpired int
	// Actions were pending in another instance and are now expired.
	Actions int
}

// Store is every backend's surface: the union of what loop, toolhost and
// proxy use. Implementations are safe for concurrent use.
type Store interface {
	// SaveTurn stores rec under its id and each of its keys, all expiring
	// together storage.turn_retention after rec.CreatedAt. Saving an id
	// again replaces the record; a key the new record no longer lists
	// stops finding it.
	SaveTurn(ctx context.Context, rec TurnRecord) error
	// FindTurn returns the turn listing key among its Keys.
	FindTurn(ctx context.Context, key string) (TurnRecord, bool, error)

	// SaveResponse stores rec under its key id and id, and under each of
	// its Items' ids, all expiring together storage.turn_retention after
	// rec.CreatedAt. Saving an id again replaces the record. Its JSON
	// fields are kept as they are, and read back the same bytes.
	SaveResponse(ctx context.Context, rec ResponseRecord) error
	// Response returns the response id that keyID saved; false when there
	// is none, it expired, or another key saved it.
	Response(ctx context.Context, keyID, id string) (ResponseRecord, bool, error)
	// ResponseByItem returns keyID's response whose Items hold itemID.
	ResponseByItem(ctx context.Context, keyID, itemID string) (ResponseRecord, bool, error)
	// DeleteResponse removes keyID's response id and reports whether it
	// existed; its items find nothing after it.
	DeleteResponse(ctx context.Context, keyID, id string) (bool, error)

	// TextFallback reports whether auto mode should use text mode for
	// model on upstream (remembered for a week).
	TextFallback(ctx context.Context, upstream, model string) (bool, error)
	RememberTextFallback(ctx context.Context, upstream, model string) error

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

	// CreateAction stores a pending action. It expires
	// storage.audit_retention after CreatedAt (now when zero).
	CreateAction(ctx context.Context, a Action) error
	// Action returns one action by id.
	Action(ctx context.Context, id string) (Action, bool, error)
	// Actions lists actions newest first.
	Actions(ctx context.Context, q ActionQuery) ([]Action, error)
	// DecideAction moves a pending action to status (approved, denied or
	// expired) with who decided and why, atomically: of two deciders one
	// wins, the other gets ErrDecided with the action as it stands.
	DecideAction(ctx context.Context, id, status, decidedBy, reason string) (Action, error)

	// PutTool creates or replaces a runtime tool; DeleteTool removes one
	// and reports whether it existed; Tools lists them by name.
	PutTool(ctx context.Context, t RuntimeTool) error
	DeleteTool(ctx context.Context, name string) (bool, error)
	Tools(ctx context.Context) ([]RuntimeTool, error)

	// CreateKey stores a new runtime key; ErrExists when its name is taken
	// (by a live key). A zero CreatedAt/UpdatedAt is now. A key with
	// ExpiresAt expires then (and is not listed after it). Its Name must
	// pass [ValidName] and its Hash be 64 lower-case hex digits
	// (ErrInvalidKey otherwise).
	CreateKey(ctx context.Context, k RuntimeKey) error
	// UpdateKey replaces an existing key's scopes, limits and expiry (its
	// Hash and CreatedAt stay as stored; UpdatedAt becomes now); ErrNotFound
	// when there is none. Returns the record as stored.
	UpdateKey(ctx context.Context, k RuntimeKey) (RuntimeKey, error)
	// DeleteKey removes a key and reports whether it existed.
	DeleteKey(ctx context.Context, name string) (bool, error)
	// Keys lists the live runtime keys by name.
	Keys(ctx context.Context) ([]RuntimeKey, error)

	// Recover resolves what a dead process left behind: started calls of
	// any instance but current become outcome_unknown (and are never run
	// again; their replay entries say so too), calls pending approval
	// become expired (decided by [DecidedByRestart]), pending actions of any
	// instance but current become expired (DecidedBy [DecidedByRestart]).
	// Called once at start-up.
	// With a store shared by replicas (PostgreSQL), "dead" is decided by
	// the backend, never by a live replica's id.
	Recover(ctx context.Context, current string) (Recovered, error)

	// ResolveStarted marks outcome_unknown (their replay entries too)
	// the calls that instance, a live process, left started but no
	// longer runs: each started call of instance for which running
	// reports false, asked while the record is held, so that a call
	// finishing meanwhile keeps its result. It returns how many it
	// marked. A process calls it for its own instance once storage
	// answers again after a call's final write failed.
	ResolveStarted(ctx context.Context, instance string, running func(id string) bool) (int, error)

	// Subscribe calls f with every change of actions, finished calls,
	// runtime tools and runtime keys made through any store sharing this
	// one's data, this one included, until stop (see [Hub]). A change
	// published again before f got it is heard once. A
	// [ChangeResync] says changes may have been missed (also when f fell
	// too far behind): re-read everything kept. Delivery is prompt (PostgreSQL: LISTEN/NOTIFY,
	// well under 100 ms) but not a guarantee; the rows are the truth.
	Subscribe(f func(Change)) (stop func())

	// Ready is nil while the store can serve (for /readyz): open, with
	// room to write (else an error wrapping ErrNoSpace) and no write
	// failed lately (else one wrapping ErrWriteFailed).
	Ready() error
	// WriteFailures counts the writes that failed for the storage's sake
	// since the store opened — refused for space, or failed in the
	// backend — but not those refused for the caller's mistake
	// (ErrTooLarge, ErrNotFound, ErrDecided, ErrInvalidKey, ErrExists).
	WriteFailures() uint64
	// Close waits for running operations and releases the store; later
	// calls return ErrClosed. Calling it again returns nil.
	Close() error
}

// RuntimeKey is a client key created through /admin/keys. Only the key's
// SHA-256 is kept: the key itself is shown once, when it is created.
type RuntimeKey struct {
	// Name identifies the key (in records, logs, metrics and the admin
	// routes); it passes [ValidName].
	Name string `json:"name"`
	// Hash is the hex SHA-256 of the key.
	Hash string `json:"hash"`
	// Models and Tools are globs; nil means all, an empty list none.
	Models []string `json:"models"`
	Tools  []string `json:"tools"`
	// Limits are per minute or at once; zero means unlimited.
	Limits KeyLimits `json:"limits"`
	// ExpiresAt, when set, is when the key stops working (and its record
	// is dropped).
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

// KeyLimits are a runtime key's limits (auth.keys' limits).
type KeyLimits struct {
	RequestsPerMinute int `json:"requests_per_minute"`
	TokensPerMinute   int `json:"tokens_per_minute"`
	ConcurrentTurns   int `json:"concurrent_turns"`
}
