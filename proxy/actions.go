package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Approvals decides actions: toolhost.Host implements it, and wakes the
// call that waits.
type Approvals interface {
	Decide(ctx context.Context, id string, approve bool, d toolhost.Decider, reason string) (store.Action, error)
	// ApproveEdited approves with the approver's arguments; an edit the
	// tool's schema refuses is a *toolhost.EditError, the action pending.
	ApproveEdited(ctx context.Context, id string, d toolhost.Decider, arguments json.RawMessage) (store.Action, error)
}

// Records is what the actions and audit routes read from storage; the
// storage backends implement it.
type Records interface {
	Action(ctx context.Context, id string) (store.Action, bool, error)
	Actions(ctx context.Context, q store.ActionQuery) ([]store.Action, error)
	Call(ctx context.Context, id string) (store.CallRecord, bool, error)
	Calls(ctx context.Context, q store.CallQuery) ([]store.CallRecord, string, error)
}

// actionView is an action as the API shows it.
type actionView struct {
	ID        string          `json:"id"`
	Object    string          `json:"object"`
	TurnID    string          `json:"turn_id"`
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Status    string          `json:"status"`
	Approval  string          `json:"approval"`
	CreatedAt time.Time       `json:"created_at"`
	ExpiresAt time.Time       `json:"expires_at"`
	DecidedBy *string         `json:"decided_by"`
	DecidedAt *time.Time      `json:"decided_at,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	KeyID     string          `json:"key_id,omitempty"`
	// EditedArguments are what an approver ran the call with instead.
	EditedArguments json.RawMessage `json:"edited_arguments,omitempty"`
}

func viewAction(a store.Action) actionView {
	v := actionView{
		ID: a.ID, Object: "toolstream.action", TurnID: a.TurnID, CallID: a.CallID, Tool: a.Tool,
		Arguments: a.Arguments, Status: a.Status, Approval: a.Approval,
		CreatedAt: a.CreatedAt, ExpiresAt: a.ExpiresAt, DecidedAt: a.DecidedAt, Reason: a.Reason, KeyID: a.KeyID,
		EditedArguments: a.EditedArguments,
	}
	if a.DecidedBy != "" {
		v.DecidedBy = &a.DecidedBy
	}
	return v
}

// listActions is GET /v1/actions?status=pending: the caller's own actions
// (an admin key's: everyone's), newest first.
func (s *Server) listActions(c echo.Context) error {
	if s.records == nil {
		return errNoStorage
	}
	d := decider(c)
	status := c.QueryParam("status")
	switch status {
	case "", store.ActionPending, store.ActionApproved, store.ActionDenied, store.ActionExpired:
	default:
		return &loop.RequestError{Param: "status", Message: "status must be pending, approved, denied or expired"}
	}
	limit, err := queryLimit(c)
	if err != nil {
		return err
	}
	list, err := s.records.Actions(c.Request().Context(), store.ActionQuery{KeyID: d.KeyID, All: d.Admin, Status: status, Limit: limit})
	if err != nil {
		return err
	}
	out := make([]actionView, 0, len(list))
	for _, a := range list {
		out = append(out, viewAction(a))
	}
	return c.JSON(http.StatusOK, map[string]any{"object": "list", "data": out})
}

// getAction is GET /v1/actions/{id}. Another key's action is not found,
// rather than forbidden: its existence is not the caller's business.
func (s *Server) getAction(c echo.Context) error {
	if s.records == nil {
		return errNoStorage
	}
	id, err := pathID(c, actionID)
	if err != nil {
		return err
	}
	a, ok, err := s.records.Action(c.Request().Context(), id)
	if err != nil {
		return err
	}
	if !ok {
		return toolhost.ErrActionNotFound
	}
	if d := decider(c); !d.Admin && a.KeyID != d.KeyID {
		return toolhost.ErrActionNotFound
	}
	return c.JSON(http.StatusOK, viewAction(a))
}

// approveAction and denyAction are POST /v1/actions/{id}/approve|deny. A
// deny may carry {"reason": "…"}, which the model reads; an approval may
// carry {"arguments": …}, the call to run with those instead of the
// model's (an object, or a JSON string holding one, as models send them).
func (s *Server) approveAction(c echo.Context) error { return s.decide(c, true) }
func (s *Server) denyAction(c echo.Context) error    { return s.decide(c, false) }

// decisionBody is the optional body of a decision.
type decisionBody struct {
	Reason    string          `json:"reason"`
	Arguments json.RawMessage `json:"arguments"`
}

func (s *Server) decide(c echo.Context, approve bool) error {
	if s.approvals == nil {
		return errNoStorage
	}
	id, err := pathID(c, actionID)
	if err != nil {
		return err
	}
	body, err := readDecision(c, approve)
	if err != nil {
		return err
	}
	ctx, d := c.Request().Context(), decider(c)
	var a store.Action
	if body.Arguments != nil {
		a, err = s.approvals.ApproveEdited(ctx, id, d, body.Arguments)
	} else {
		a, err = s.approvals.Decide(ctx, id, approve, d, body.Reason)
	}
	var eerr *toolhost.EditError
	switch {
	case errors.Is(err, store.ErrDecided):
		return &decidedError{action: a}
	case errors.As(err, &eerr):
		param := "arguments"
		if eerr.Param != "" {
			param += "." + eerr.Param
		}
		return &loop.RequestError{Param: param, Message: "arguments: " + eerr.Message + " (the action is still pending)"}
	case err != nil:
		return err
	}
	return c.JSON(http.StatusOK, viewAction(a))
}

// readDecision reads a decision's body: none, or a JSON object with a
// deny's reason or an approval's arguments (null is none).
func readDecision(c echo.Context, approve bool) (decisionBody, error) {
	var body decisionBody
	raw, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return body, err
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return body, nil
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return body, &loop.RequestError{Message: `the body must be empty or a JSON object like {"reason": "…"} or {"arguments": {…}}`}
	}
	if string(body.Arguments) == "null" {
		body.Arguments = nil
	}
	if body.Arguments != nil && !approve {
		return body, &loop.RequestError{Param: "arguments", Message: "arguments are given with an approval, not a deny"}
	}
	return body, nil
}

// decidedError is a second decision on an action (409).
type decidedError struct{ action store.Action }

func (e *decidedError) Error() string {
	return "action " + e.action.ID + " is already " + e.action.Status
}

// errNoStorage answers the storage-backed routes of a proxy built without
// storage (tests, embedding).
var errNoStorage = errors.New("proxy: no storage configured")
