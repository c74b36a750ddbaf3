package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Backend is a storage backend as [Checked] fronts it, the way
// database/sql fronts a driver: every [Store] method, called only with
// ids and names that passed the checks every backend shares, and with the
// defaults filled in (a zero StartedAt or CreatedAt is Now, a started
// call's status is started, a page size is bounded). What only the stored
// record can tell (a FinishCall's zero StartedAt, a replaced tool's
// CreatedAt) stays with the backend.
type Backend interface {
	Store
	// Now is the backend's clock: the time its records are stamped with
	// and expire by.
	Now() time.Time
}

// Checked returns b behind the checks and defaults every backend shares,
// so that a caller's mistake reads the same whichever backend runs: an id
// or name that fails [ValidName], an empty turn or response id, a runtime
// key's hash that is not 64 lower-case hex digits, a decision that is not
// one, are refused with an error wrapping [ErrInvalidKey] (the decision
// with a plain error) before b sees them. Open a backend and use it only
// through Checked.
func Checked(b Backend) Store { return checked{b} }

// checked is [Checked]'s Store. The methods it does not declare (the
// reads by scope, Subscribe, Ready, WriteFailures, Close) pass straight
// to the backend.
type checked struct{ Backend }

func (c checked) SaveTurn(ctx context.Context, rec TurnRecord) error {
	if rec.ID == "" {
		return fmt.Errorf("saving turn: %w: empty turn id", ErrInvalidKey)
	}
	if slices.Contains(rec.Keys, "") {
		return fmt.Errorf("saving turn %s: %w: empty lookup key", rec.ID, ErrInvalidKey)
	}
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = c.Now()
	}
	return c.Backend.SaveTurn(ctx, rec)
}

func (c checked) SaveResponse(ctx context.Context, rec ResponseRecord) error {
	if rec.ID == "" {
		return fmt.Errorf("saving response: %w: empty response id", ErrInvalidKey)
	}
	if _, ok := rec.Items[""]; ok {
		return fmt.Errorf("saving response %s: %w: empty item id", rec.ID, ErrInvalidKey)
	}
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = c.Now()
	}
	return c.Backend.SaveResponse(ctx, rec)
}

func (c checked) TextFallback(ctx context.Context, upstream, model string) (bool, error) {
	if err := checkNames("upstream", upstream); err != nil {
		return false, fmt.Errorf("reading tool mode: %w", err)
	}
	return c.Backend.TextFallback(ctx, upstream, model)
}

func (c checked) RememberTextFallback(ctx context.Context, upstream, model string) error {
	if err := checkNames("upstream", upstream); err != nil {
		return fmt.Errorf("remembering text fallback: %w", err)
	}
	return c.Backend.RememberTextFallback(ctx, upstream, model)
}

func (c checked) StartCall(ctx context.Context, rec CallRecord, ref *AttemptRef) error {
	if err := checkCall(rec, ref); err != nil {
		return fmt.Errorf("starting call: %w", err)
	}
	rec.Status = StatusStarted
	if rec.StartedAt.IsZero() {
		rec.StartedAt = c.Now()
	}
	if ref != nil && rec.Attempt == "" {
		rec.Attempt = ref.Attempt
	}
	return c.Backend.StartCall(ctx, rec, ref)
}

func (c checked) FinishCall(ctx context.Context, rec CallRecord, ref *AttemptRef) error {
	if err := checkCall(rec, ref); err != nil {
		return fmt.Errorf("finishing call: %w", err)
	}
	return c.Backend.FinishCall(ctx, rec, ref)
}

func (c checked) RecordCall(ctx context.Context, rec CallRecord) error {
	if err := checkCall(rec, nil); err != nil {
		return fmt.Errorf("recording call: %w", err)
	}
	if rec.StartedAt.IsZero() {
		rec.StartedAt = c.Now()
	}
	return c.Backend.RecordCall(ctx, rec)
}

func (c checked) Call(ctx context.Context, id string) (CallRecord, bool, error) {
	if err := checkNames("call record id", id); err != nil {
		return CallRecord{}, false, fmt.Errorf("reading call: %w", err)
	}
	return c.Backend.Call(ctx, id)
}

func (c checked) Calls(ctx context.Context, q CallQuery) ([]CallRecord, string, error) {
	q.Limit = q.PageSize()
	return c.Backend.Calls(ctx, q)
}

func (c checked) Replays(ctx context.Context, attempt string) ([]Replay, error) {
	if err := checkNames("attempt", attempt); err != nil {
		return nil, fmt.Errorf("reading replays: %w", err)
	}
	return c.Backend.Replays(ctx, attempt)
}

func (c checked) CreateAction(ctx context.Context, a Action) error {
	if err := checkNames("action id", a.ID); err != nil {
		return fmt.Errorf("creating action: %w", err)
	}
	a.Status = ActionPending
	if a.CreatedAt.IsZero() {
		a.CreatedAt = c.Now()
	}
	return c.Backend.CreateAction(ctx, a)
}

func (c checked) Action(ctx context.Context, id string) (Action, bool, error) {
	if err := checkNames("action id", id); err != nil {
		return Action{}, false, fmt.Errorf("reading action: %w", err)
	}
	return c.Backend.Action(ctx, id)
}

func (c checked) Actions(ctx context.Context, q ActionQuery) ([]Action, error) {
	q.Limit = q.ListSize()
	return c.Backend.Actions(ctx, q)
}

func (c checked) DecideAction(ctx context.Context, id, status, decidedBy, reason string) (Action, error) {
	if err := checkDecision(id, status); err != nil {
		return Action{}, err
	}
	return c.Backend.DecideAction(ctx, id, status, decidedBy, reason)
}

func (c checked) ApproveEdited(ctx context.Context, id, decidedBy string, arguments json.RawMessage) (Action, error) {
	if err := checkDecision(id, ActionApproved); err != nil {
		return Action{}, err
	}
	if !json.Valid(arguments) {
		return Action{}, fmt.Errorf("deciding action %s: the edited arguments are not JSON", id)
	}
	return c.Backend.ApproveEdited(ctx, id, decidedBy, arguments)
}

func (c checked) PutTool(ctx context.Context, t RuntimeTool) error {
	if err := checkNames("tool name", t.Name); err != nil {
		return fmt.Errorf("saving tool: %w", err)
	}
	if t.UpdatedAt.IsZero() {
		t.UpdatedAt = c.Now()
	}
	return c.Backend.PutTool(ctx, t)
}

func (c checked) DeleteTool(ctx context.Context, name string) (bool, error) {
	if err := checkNames("tool name", name); err != nil {
		return false, fmt.Errorf("deleting tool: %w", err)
	}
	return c.Backend.DeleteTool(ctx, name)
}

func (c checked) CreateKey(ctx context.Context, k RuntimeKey) error {
	if err := checkNames("key name", k.Name); err != nil {
		return fmt.Errorf("creating key: %w", err)
	}
	if err := checkHash(k.Hash); err != nil {
		return fmt.Errorf("creating key %s: %w", k.Name, err)
	}
	now := c.Now()
	if k.CreatedAt.IsZero() {
		k.CreatedAt = now
	}
	if k.UpdatedAt.IsZero() {
		k.UpdatedAt = now
	}
	return c.Backend.CreateKey(ctx, k)
}

func (c checked) UpdateKey(ctx context.Context, k RuntimeKey) (RuntimeKey, error) {
	if err := checkNames("key name", k.Name); err != nil {
		return RuntimeKey{}, fmt.Errorf("updating key: %w", err)
	}
	return c.Backend.UpdateKey(ctx, k)
}

func (c checked) DeleteKey(ctx context.Context, name string) (bool, error) {
	if err := checkNames("key name", name); err != nil {
		return false, fmt.Errorf("deleting key: %w", err)
	}
	return c.Backend.DeleteKey(ctx, name)
}

func (c checked) Recover(ctx context.Context, current string) (Recovered, error) {
	if err := checkNames("instance id", current); err != nil {
		return Recovered{}, fmt.Errorf("recovering: %w", err)
	}
	return c.Backend.Recover(ctx, current)
}

func (c checked) ResolveStarted(ctx context.Context, instance string, running func(id string) bool) (int, error) {
	if err := checkNames("instance id", instance); err != nil {
		return 0, fmt.Errorf("resolving started calls: %w", err)
	}
	return c.Backend.ResolveStarted(ctx, instance, running)
}

// Reachability returns the Reachable method of s's backend when it has
// one (a shared database: nil while it answers, an error wrapping
// [ErrUnavailable] while it does not), and nil for an embedded store,
// which is always reachable.
func Reachability(s Store) func() error {
	if c, ok := s.(checked); ok {
		s = c.Backend
	}
	if r, ok := s.(interface{ Reachable() error }); ok {
		return r.Reachable
	}
	return nil
}
