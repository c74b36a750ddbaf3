package proxy

import (
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
}

func viewAction(a store.Action) actionView {
	v := actionView{
		ID: a.ID, Object: "toolstream.action", TurnID: a.TurnID, CallID: a.CallID, Tool: a.Tool,
		Arguments: a.Arguments, Status: a.Status, Approval: a.Approval,
		CreatedAt: a.CreatedAt, ExpiresAt: a.ExpiresAt, DecidedAt: a.DecidedAt, Reason: a.Reason, KeyID: a.KeyID,
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
// deny may carry {"reason": "…"}, which the model reads.
func (s *Server) approveAction(c echo.Context) error { return s.decide(c, true) }
func (s *Server) denyAction(c echo.Context) error    { return s.decide(c, false) }

func (s *Server) decide(c echo.Context, approve bool) error {
	if s.approvals == nil {
		return errNoStorage
	}
	id, err := pathID(c, actionID)
	if err != nil {
		return err
	}
	var body struct {
		Reason string `json:"reason"`
	}
	raw, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &body); err != nil {
			return &loop.RequestError{Message: `the body must be empty or a JSON object like {"reason": "…"}`}
		}
	}
	a, err := s.approvals.Decide(c.Request().Context(), id, approve, decider(c), body.Reason)
	if errors.Is(err, store.ErrDecided) {
		return &decidedError{action: a}
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, viewAction(a))
}

// decidedError is a second decision on an action (409).
type decidedError struct{ action store.Action }

func (e *decidedError) Error() string {
	return "action " + e.action.ID + " is already " + e.action.Status
}

// errNoStorage answers the storage-backed routes of a proxy built without
// storage (tests, embedding).
var errNoStorage = errors.New("proxy: no storage configured")
