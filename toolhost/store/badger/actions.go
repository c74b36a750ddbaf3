package badger

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/toolhost/store"
)

// decidedByTimeout is the DecidedBy of an action [DB.DecideAction] found
// past its ExpiresAt.
const decidedByTimeout = "timeout"

// CreateAction stores a with Status pending, expiring
// storage.audit_retention after CreatedAt (now when zero). a.ID must pass
// [store.ValidName].
func (d *DB) CreateAction(ctx context.Context, a store.Action) error {
	exp := expireAt(a.CreatedAt.Add(d.auditRetention))
	err := d.update(ctx, func(txn *dgbadger.Txn) error {
		return d.writeAction(txn, timeKey(prefixAction, a.CreatedAt, a.ID), a, exp)
	})
	d.changed(err, store.ChangeAction, a.ID)
	return wrapErr("creating action", a.ID, err)
}

// Action returns one action by id; false when there is none (or it
// expired).
func (d *DB) Action(ctx context.Context, id string) (store.Action, bool, error) {
	a, found, err := readIndexed[store.Action](ctx, d, key(prefixActionID, id))
	return a, found, wrapErr("reading action", id, err)
}

// Actions lists actions newest first: those of q.KeyID unless q.All, of
// q.Status when set, at most q.Limit (100 when zero or less).
func (d *DB) Actions(ctx context.Context, q store.ActionQuery) ([]store.Action, error) {
	limit := q.Limit
	var out []store.Action
	err := d.view(ctx, func(txn *dgbadger.Txn) error {
		return scanJSON(txn, prefixAction, true, nil, func(_ []byte, a store.Action) (bool, error) {
			if (q.All || a.KeyID == q.KeyID) && (q.Status == "" || a.Status == q.Status) {
				out = append(out, a)
			}
			return len(out) < limit, nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("listing actions: %w", err)
	}
	return out, nil
}

// DecideAction moves a pending action to status (approved, denied or
// expired), atomically: the transaction reads the action, so of two
// deciders committing at once one gets [dgbadger.ErrConflict], runs again,
// reads the winner's decision and returns [store.ErrDecided] with it. A
// pending action past its ExpiresAt is expired by the call (DecidedBy
// "timeout") unless status is expired already, and the call gets
// ErrDecided: an approval that came too late does not count.
func (d *DB) DecideAction(ctx context.Context, id, status, decidedBy, reason string) (store.Action, error) {
	return d.decide(ctx, id, status, decidedBy, reason, nil)
}

// ApproveEdited approves a pending action as [DB.DecideAction] does,
// keeping arguments as its EditedArguments in the same write.
func (d *DB) ApproveEdited(ctx context.Context, id, decidedBy string, arguments json.RawMessage) (store.Action, error) {
	return d.decide(ctx, id, store.ActionApproved, decidedBy, "", arguments)
}

// decide is DecideAction with the approver's edit, nil when none.
func (d *DB) decide(ctx context.Context, id, status, decidedBy, reason string, edit json.RawMessage) (store.Action, error) {
	var (
		out  store.Action
		late bool // found past its ExpiresAt and expired instead
	)
	err := d.update(ctx, func(txn *dgbadger.Txn) error {
		var a store.Action
		k, exp, ok, err := getIndexed(txn, key(prefixActionID, id), &a)
		if err != nil {
			return err
		}
		if !ok {
			return store.ErrNotFound
		}
		out = a
		if a.Status != store.ActionPending {
			return store.ErrDecided
		}
		now := d.now()
		st, by, why := status, decidedBy, reason
		late = status != store.ActionExpired && !a.ExpiresAt.IsZero() && !now.Before(a.ExpiresAt)
		if late {
			st, by, why, edit = store.ActionExpired, decidedByTimeout, "", nil
		}
		a.EditedArguments = edit
		a.Status, a.DecidedBy, a.Reason, a.DecidedAt = st, by, why, &now
		out = a
		return d.writeAction(txn, k, a, exp)
	})
	d.changed(err, store.ChangeAction, id)
	switch {
	case err != nil:
		return out, wrapErr("deciding action", id, err)
	case late:
		return out, fmt.Errorf("deciding action %s: %w (expired at %s)", id, store.ErrDecided, out.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return out, nil
}

// writeAction writes a under its key k with its id index, and keeps its
// open/ entry while it is pending.
func (d *DB) writeAction(txn *dgbadger.Txn, k []byte, a store.Action, exp uint64) error {
	if err := d.putIndexed(txn, key(prefixActionID, a.ID), k, a, exp); err != nil {
		return err
	}
	return d.setOpen(txn, key(prefixOpenAction, a.ID), a.Status == store.ActionPending, a.Instance, exp)
}
