package toolhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

// Errors of [Host.Decide], each a distinct answer of the actions API.
var (
	// ErrActionNotFound: no such action, or not the caller's to see.
	ErrActionNotFound = errors.New("toolhost: action not found")
	// ErrAdminOnly: the action's tool has approval: admin and the caller
	// is not an admin key.
	ErrAdminOnly = errors.New("toolhost: only an admin key decides this action")
	// ErrDecided: the action was decided already or expired.
	ErrDecided = store.ErrDecided
)

// ErrShuttingDown, as the cause of a call's context ([context.Cause]),
// says the process is shutting down: an approval wait it ends is on record
// as decided by "shutdown", not by a client that left. proxy's own
// ErrShuttingDown wraps it (toolhost cannot import proxy); its text has no
// package prefix so that proxy's reads "proxy: shutting down".
var ErrShuttingDown = errors.New("shutting down")

// Decider is who decides an action: a client key, or an admin key.
type Decider struct {
	KeyID string
	Admin bool
}

// waiters wakes the call waiting on an action when it is decided. The
// store's row is the truth; a wake-up only says "look again". With a
// store shared by replicas, a notification from another replica wakes
// the same way ([Host.Wake]).
type waiters struct {
	mu sync.Mutex
	m  map[string]chan struct{}
}

func (w *waiters) add(id string) chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[string]chan struct{}{}
	}
	ch := make(chan struct{}, 1)
	w.m[id] = ch
	return ch
}

func (w *waiters) remove(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.m, id)
}

// Wake tells the call waiting on action id, if it waits in this process,
// that the action changed.
func (h *Host) Wake(id string) {
	h.waiters.mu.Lock()
	ch := h.waiters.m[id]
	h.waiters.mu.Unlock()
	if ch != nil {
		poke(ch)
	}
}

// poke tells a waiter to look again, without waiting: its channel holds
// one pending wake-up, and one is as good as several.
func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// CanDecide reports whether d may see and decide a: the key that started
// the turn decides approval: always; admin keys decide everything and see
// everything; approval: admin needs an admin key. A proxy without client
// keys has empty key ids, which match.
func CanDecide(d Decider, a store.Action) error {
	if d.Admin {
		return nil
	}
	if a.KeyID != d.KeyID {
		return ErrActionNotFound
	}
	if a.Approval == ApprovalAdmin {
		return ErrAdminOnly
	}
	return nil
}

// Decide approves (approve true) or denies an action for d. reason, with a
// deny, reaches the model. It returns the action as decided, or as it
// stands with [ErrDecided].
func (h *Host) Decide(ctx context.Context, id string, approve bool, d Decider, reason string) (store.Action, error) {
	a, err := h.decidable(ctx, id, d)
	if err != nil {
		return store.Action{}, err
	}
	status := store.ActionDenied
	if approve {
		status, reason = store.ActionApproved, ""
	}
	a, err = h.records.DecideAction(ctx, id, status, deciderName(d), reason)
	if err != nil {
		return a, err
	}
	h.Wake(id)
	return a, nil
}

// decidable reads action id for d to decide: ErrActionNotFound when
// there is none or d may not see it, ErrAdminOnly when d may not decide it.
func (h *Host) decidable(ctx context.Context, id string, d Decider) (store.Action, error) {
	if h.records == nil {
		return store.Action{}, ErrActionNotFound
	}
	a, ok, err := h.records.Action(ctx, id)
	if err != nil {
		return store.Action{}, err
	}
	if !ok {
		return store.Action{}, ErrActionNotFound
	}
	if err := CanDecide(d, a); err != nil {
		return store.Action{}, err
	}
	return a, nil
}

func deciderName(d Decider) string {
	if d.KeyID == "" {
		return "anonymous"
	}
	return d.KeyID
}

// approve holds a call of a tool that needs approval until it is decided
// (docs/webhooks.md). It returns how the call was let through, or the result of
// a call that must not run (denied, expired, client gone) and, for the client
// gone, the error Execute returns. An approval with an edit leaves the
// edit, as stored (redact fields masked), in the decision's action. With
// Origin.Park the call is not held: its action is created pending and its
// result is StatusAwaiting.
//
// byPolicy says a policies rule holds the call: a request's approve list
// does not lift it (docs/policies.md).
func (h *Host) approve(ctx context.Context, call Call, tool Tool, rec store.CallRecord, args json.RawMessage, byPolicy bool) (*store.Decision, json.RawMessage, *Result, error) {
	approval := call.Origin.approval(tool)
	if approval == ApprovalNever || approval == "" {
		return nil, nil, nil, nil
	}
	now := h.now().UTC()
	if approval == ApprovalAlways && !byPolicy && call.Origin.preApproved(tool.Name) {
		return &store.Decision{Decision: "pre-approved", DecidedBy: rec.KeyID, At: now}, nil, nil, nil
	}
	if h.records == nil {
		res := ErrorResult(call, CodeDenied, "this tool needs approval, and the proxy has no storage to hold one")
		return &store.Decision{Decision: store.ActionDenied, DecidedBy: "no-storage", At: now}, nil, &res, nil
	}

	a := store.Action{
		ID: store.NewID("act_"), TurnID: call.TurnID, CallID: call.ID, Tool: tool.Name,
		Arguments: rec.Arguments, Status: store.ActionPending, Approval: approval,
		CreatedAt: now, ExpiresAt: now.Add(h.approvalTTL), KeyID: rec.KeyID,
		AuditID: rec.ID, Instance: h.instance,
	}
	// The call goes on record before the wait, pending: a process that
	// dies while it waits leaves it for the next start to mark expired,
	// not missing from the audit log with only its action to show.
	pending := rec
	pending.Status = store.StatusPendingApproval
	pending.Approval = &store.Decision{ActionID: a.ID, Decision: "pending", At: now}
	if err := h.records.RecordCall(context.WithoutCancel(ctx), pending); err != nil {
		h.log.LogAttrs(ctx, slog.LevelError, "audit log write failed; call not run",
			slog.String("tool", tool.Name), slog.String("call_id", call.ID), slog.String("error", err.Error()))
		res := ErrorResult(call, CodeExecutionFailed, "the call could not be written to the audit log, so it was not run")
		return nil, nil, &res, nil
	}
	wake := h.waiters.add(a.ID)
	defer h.waiters.remove(a.ID)
	h.proposed.Store(a.ID, args)
	defer h.proposed.Delete(a.ID)
	if e := turnEntry(call); e != nil {
		// A turn tool is in no registry an edit could find it in.
		h.turnEntries.Store(a.ID, e)
		defer h.turnEntries.Delete(a.ID)
	}
	if err := h.records.CreateAction(context.WithoutCancel(ctx), a); err != nil {
		h.log.LogAttrs(ctx, slog.LevelError, "storing an approval failed", slog.String("tool", tool.Name), slog.String("error", err.Error()))
		res := ErrorResult(call, CodeDenied, "the approval could not be stored, so the call was not run")
		return &store.Decision{Decision: store.ActionDenied, DecidedBy: "storage-error", At: now}, nil, &res, nil
	}
	if call.Origin.parks() {
		dec, res, err := h.park(call, a)
		return dec, nil, res, err
	}
	h.pending.Add(1)
	defer h.pending.Add(-1)
	if call.Progress != nil {
		call.Progress.ApprovalRequested(call, a)
	}
	a, err := h.await(ctx, a, wake)
	if call.Progress != nil {
		call.Progress.ApprovalResolved(call, a)
	}
	return h.decided(ctx, call, a, err)
}

// park ends a call that needs approval without waiting (Origin.Park):
// the client hears of its action, and decides it in its next request,
// which resumes the call (Call.Action). Its audit record stays pending.
func (h *Host) park(call Call, a store.Action) (*store.Decision, *Result, error) {
	// Nobody waits on it: undecided at its expiry, it expires as a held
	// call's does, for /v1/actions and the request that resumes it.
	time.AfterFunc(a.ExpiresAt.Sub(h.now()), func() {
		if cur, ok, err := h.records.Action(context.Background(), a.ID); err == nil && ok && cur.Status == store.ActionPending {
			h.expire(context.Background(), a.ID, "timeout")
		}
	})
	if call.Progress != nil {
		call.Progress.ApprovalRequested(call, a)
	}
	res := Result{CallID: call.ID, Name: call.Name, Arguments: call.Arguments, Status: StatusAwaiting}
	return &store.Decision{ActionID: a.ID, Decision: "pending", At: a.CreatedAt}, &res, nil
}

// resume decides a call parked earlier by its action (Call.Action): it
// waits while the action is pending, and takes over the parked call's
// audit record, which its final record replaces.
func (h *Host) resume(ctx context.Context, call Call, rec *store.CallRecord) (*store.Decision, json.RawMessage, *Result, error) {
	now := h.now().UTC()
	var (
		a   store.Action
		ok  bool
		err error
	)
	if h.records != nil {
		a, ok, err = h.records.Action(ctx, call.Action)
	}
	if err != nil || !ok || a.CallID != call.ID || a.Tool != call.Name {
		res := ErrorResult(call, CodeDenied, "the approval this call waited for is not on record, so it was not run")
		return &store.Decision{ActionID: call.Action, Decision: store.ActionDenied, DecidedBy: "not-found", At: now}, nil, &res, nil
	}
	if _, taken := h.resuming.LoadOrStore(a.ID, true); taken {
		res := ErrorResult(call, CodeOutcomeUnknown, "another request resumed this call already, and it may have run; it is not run again")
		return nil, nil, &res, nil
	}
	// Kept a while: a request that found the call parked just before
	// its record was completed is still turned away.
	time.AfterFunc(resumeMemory, func() { h.resuming.Delete(a.ID) })
	if a.AuditID != "" {
		rec.ID, rec.TurnID = a.AuditID, a.TurnID
	}
	if a.Status == store.ActionPending {
		wake := h.waiters.add(a.ID)
		defer h.waiters.remove(a.ID)
		h.pending.Add(1)
		defer h.pending.Add(-1)
		// Read again once listening: a decision in between wakes nobody.
		if cur, ok, rerr := h.records.Action(ctx, a.ID); rerr == nil && ok {
			a = cur
		}
		if a.Status == store.ActionPending {
			a, err = h.await(ctx, a, wake)
		}
	}
	return h.decided(ctx, call, a, err)
}

// resumeMemory is how long a resumed action is remembered as taken
// (Host.resuming) after its resume began: a request finds a call parked
// from its audit record, which is complete long before.
const resumeMemory = 10 * time.Minute

// decided is how a call goes on once its action ended: let through when
// approved, else the result the model reads (denied, expired, cancelled
// when err says the wait was cut).
func (h *Host) decided(ctx context.Context, call Call, a store.Action, err error) (*store.Decision, json.RawMessage, *Result, error) {
	dec := &store.Decision{ActionID: a.ID, Decision: a.Status, DecidedBy: a.DecidedBy, Reason: a.Reason, At: h.now().UTC()}
	if a.DecidedAt != nil {
		dec.At = *a.DecidedAt
	}
	switch {
	case a.Status == store.ActionApproved:
		return dec, a.EditedArguments, nil, nil
	case err != nil:
		res, cerr := cancelled(ctx, call, nil)
		return dec, nil, &res, cerr
	case a.Status == store.ActionDenied:
		msg := "the user denied this call"
		if a.Reason != "" {
			msg += ": " + a.Reason
		}
		res := ErrorResult(call, CodeDenied, msg+". Do not retry it unless the user asks again.")
		return dec, nil, &res, nil
	default: // expired: nobody decided in time
		res := ErrorResult(call, CodeDenied, fmt.Sprintf("nobody approved this call within %s, so it was not run", h.approvalTTL))
		return dec, nil, &res, nil
	}
}

// await waits for a decision on a, the approval timeout, or ctx. It
// returns the action as it ended; err is set only when ctx ended the wait
// (the action is then expired, decided by "client-gone", or by "shutdown"
// when ctx was cancelled with [ErrShuttingDown]).
func (h *Host) await(ctx context.Context, a store.Action, wake <-chan struct{}) (store.Action, error) {
	timer := time.NewTimer(a.ExpiresAt.Sub(h.now()))
	defer timer.Stop()
	bctx := context.WithoutCancel(ctx)
	for {
		select {
		case <-wake:
			cur, ok, err := h.records.Action(bctx, a.ID)
			if err == nil && ok && cur.Status != store.ActionPending {
				return cur, nil
			}
		case <-timer.C:
			return h.expire(bctx, a.ID, "timeout"), nil
		case <-ctx.Done():
			return h.expire(bctx, a.ID, stoppedBy(ctx)), ctx.Err()
		}
	}
}

// stoppedBy names what ended ctx, for an action's decided_by: the
// shutdown, or else the client, which left (net/http cancels a request's
// context when its connection ends).
func stoppedBy(ctx context.Context) string {
	if errors.Is(context.Cause(ctx), ErrShuttingDown) {
		return "shutdown"
	}
	return "client-gone"
}

// expire ends a pending action nobody decided. A decision that won the
// race stands, and is returned instead.
func (h *Host) expire(ctx context.Context, id, by string) store.Action {
	ctx, cancel := context.WithTimeout(ctx, bookkeepingTimeout)
	defer cancel()
	a, err := h.records.DecideAction(ctx, id, store.ActionExpired, by, "")
	if err != nil && !errors.Is(err, store.ErrDecided) {
		h.log.LogAttrs(ctx, slog.LevelError, "expiring an approval failed", slog.String("action_id", id), slog.String("error", err.Error()))
		return store.Action{ID: id, Status: store.ActionExpired, DecidedBy: by}
	}
	return a
}
