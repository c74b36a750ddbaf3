package store

import (
	"context"
	"encoding/json"
	"time"
)

// Action statuses (approvals).
const (
	ActionPending  = "pending"
	ActionApproved = "approved"
	ActionDenied   = "denied"
	ActionExpired  = "expired"
)

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
	// EditedArguments are the arguments an approver ran the call with
	// instead of the model's ([ActionStore.ApproveEdited]), coerced, redact
	// fields masked; empty when the call ran as proposed.
	EditedArguments json.RawMessage `json:"edited_arguments,omitempty"`
	// DecidedAt is set with every status but pending.
	DecidedAt *time.Time `json:"decided_at,omitempty"`
	// AuditID is the call's audit record.
	AuditID  string `json:"audit_id,omitempty"`
	Instance string `json:"instance,omitempty"`
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

// ActionStore keeps approvals (actions) and their decisions.
type ActionStore interface {
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
	// ApproveEdited approves a pending action as DecideAction does, and
	// keeps arguments, the approver's edit, in EditedArguments: the call
	// that waits runs with them, on whichever replica it waits.
	ApproveEdited(ctx context.Context, id, decidedBy string, arguments json.RawMessage) (Action, error)
}
