package badger

import (
	"context"
	"fmt"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/toolhost/store"
)

// Recover resolves what a dead process left behind: started calls of any
// instance but current become outcome_unknown (their replay entries too),
// pending actions of any instance but current become expired with
// DecidedBy [store.DecidedByRestart]. It reads only the open/ index, not
// the audit log. Only one process opens a badger directory, so at
// start-up every other instance is dead.
func (d *DB) Recover(ctx context.Context, current string) (store.Recovered, error) {
	var r store.Recovered
	var err error
	if r.Calls, err = d.resolveOpen(ctx, prefixOpenCall, current, d.recoverCall); err != nil {
		return r, fmt.Errorf("recovering started calls: %w", err)
	}
	if r.Actions, err = d.resolveOpen(ctx, prefixOpenAction, current, d.recoverAction); err != nil {
		return r, fmt.Errorf("recovering pending actions: %w", err)
	}
	return r, nil
}

// resolveOpen calls resolve, each in its own transaction, for every open/
// entry under prefix held by an instance other than current, and counts
// the records it changed. One transaction per record keeps a long list
// within badger's transaction size.
func (d *DB) resolveOpen(ctx context.Context, prefix, current string, resolve func(txn *dgbadger.Txn, id string) (bool, error)) (int, error) {
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
		return 0, err
	}
	n := 0
	for _, id := range ids {
		changed := false
		err := d.update(ctx, func(txn *dgbadger.Txn) error {
			changed = false
			holder, _, ok, err := getRaw(txn, key(prefix, id))
			if err != nil || !ok || string(holder) == current {
				return err // finished or taken over since the scan
			}
			if changed, err = resolve(txn, id); err != nil {
				return err
			}
			// Resolved, or its record is gone: the entry is done.
			return txn.Delete(key(prefix, id))
		})
		if err != nil {
			return n, fmt.Errorf("%s: %w", id, err)
		}
		if changed {
			n++
		}
	}
	return n, nil
}

// recoverCall marks the call id outcome_unknown if it is still started.
func (d *DB) recoverCall(txn *dgbadger.Txn, id string) (bool, error) {
	var rec store.CallRecord
	k, exp, ok, err := getIndexed(txn, key(prefixCall, id), &rec)
	if err != nil || !ok || rec.Status != store.StatusStarted {
		return false, err
	}
	rec.Status = store.StatusOutcomeUnknown
	if err := d.writeCall(txn, k, rec, exp); err != nil {
		return false, err
	}
	return true, d.markReplayUnknown(txn, rec)
}

// recoverAction expires the action id if it is still pending.
func (d *DB) recoverAction(txn *dgbadger.Txn, id string) (bool, error) {
	var a store.Action
	k, exp, ok, err := getIndexed(txn, key(prefixActionID, id), &a)
	if err != nil || !ok || a.Status != store.ActionPending {
		return false, err
	}
	now := d.now()
	a.Status, a.DecidedBy, a.DecidedAt = store.ActionExpired, store.DecidedByRestart, &now
	return true, d.writeAction(txn, k, a, exp)
}
