package badger

import (
	"context"
	"fmt"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/toolhost/store"
)

// Recover resolves what a dead process left behind: of any instance but
// current, started calls become outcome_unknown (their replay entries
// too), calls pending approval become expired, and pending actions become
// expired with DecidedBy [store.DecidedByCrash]. It reads only the open/ index, not
// the audit log. Only one process opens a badger directory, so at
// start-up every other instance is dead.
func (d *DB) Recover(ctx context.Context, current string) (store.Recovered, error) {
	var r store.Recovered
	calls, err := d.resolveOpen(ctx, prefixOpenCall, current, d.recoverCall)
	if err != nil {
		return r, fmt.Errorf("recovering started calls: %w", err)
	}
	r.Calls, r.CallsExpired = calls[store.StatusOutcomeUnknown], calls[store.StatusExpired]
	actions, err := d.resolveOpen(ctx, prefixOpenAction, current, d.recoverAction)
	if err != nil {
		return r, fmt.Errorf("recovering pending actions: %w", err)
	}
	r.Actions = actions[store.ActionExpired]
	return r, nil
}

// resolveOpen calls resolve, each in its own transaction, for every open/
// entry under prefix held by an instance other than current, and counts
// the records it changed by the status resolve gave them ("" for one it
// left alone). One transaction per record keeps a long list within
// badger's transaction size.
func (d *DB) resolveOpen(ctx context.Context, prefix, current string, resolve func(txn *dgbadger.Txn, id string) (string, error)) (map[string]int, error) {
	var ids []string
	err := d.view(ctx, func(txn *dgbadger.Txn) error {
		return scan(txn, prefix, false, nil, func(k, val []byte) (bool, error) {
			if string(val) != current {
				ids = append(ids, string(k[len(prefix):]))
			}
			return true, nil
		})
	})
	if err != nil {
		return nil, err
	}
	n := map[string]int{}
	for _, id := range ids {
		status := ""
		err := d.update(ctx, func(txn *dgbadger.Txn) error {
			status = ""
			holder, _, ok, err := getRaw(txn, key(prefix, id))
			if err != nil || !ok || string(holder) == current {
				return err // finished or taken over since the scan
			}
			if status, err = resolve(txn, id); err != nil {
				return err
			}
			// Resolved, or its record is gone: the entry is done.
			return txn.Delete(key(prefix, id))
		})
		if err != nil {
			return n, fmt.Errorf("%s: %w", id, err)
		}
		if status != "" {
			n[status]++
		}
	}
	return n, nil
}

// recoverCall marks the call id outcome_unknown if it is still started,
// and expired if it still waited for an approval: that call never ran.
func (d *DB) recoverCall(txn *dgbadger.Txn, id string) (string, error) {
	var rec store.CallRecord
	k, exp, ok, err := getIndexed(txn, key(prefixCall, id), &rec)
	if err != nil || !ok {
		return "", err
	}
	switch rec.Status {
	case store.StatusStarted:
		rec.Status = store.StatusOutcomeUnknown
		if err := d.writeCall(txn, k, rec, exp); err != nil {
			return "", err
		}
		return rec.Status, d.markReplayUnknown(txn, rec)
	case store.StatusPendingApproval:
		now := d.now().UTC()
		rec.Status, rec.FinishedAt = store.StatusExpired, &now
		rec.ErrorMessage = "the process stopped while the call waited for approval; it was not run"
		dec := store.Decision{Decision: store.ActionExpired, DecidedBy: store.DecidedByCrash, At: now}
		if rec.Approval != nil {
			dec.ActionID = rec.Approval.ActionID
		}
		rec.Approval = &dec
		return rec.Status, d.writeCall(txn, k, rec, exp)
	}
	return "", nil
}

// recoverAction expires the action id if it is still pending.
func (d *DB) recoverAction(txn *dgbadger.Txn, id string) (string, error) {
	var a store.Action
	k, exp, ok, err := getIndexed(txn, key(prefixActionID, id), &a)
	if err != nil || !ok || a.Status != store.ActionPending {
		return "", err
	}
	now := d.now()
	a.Status, a.DecidedBy, a.DecidedAt = store.ActionExpired, store.DecidedByCrash, &now
	return a.Status, d.writeAction(txn, k, a, exp)
}
