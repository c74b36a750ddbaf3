package badger

import (
	"context"
	"fmt"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/toolhost/store"
)

// ResolveStarted marks outcome_unknown the calls instance left started
// whose ids running does not report (see [store.Lifecycle.ResolveStarted]),
// from the open/ index. Each is resolved in a transaction of its own that
// asks running after reading the record: a FinishCall committed after
// that read makes the transaction conflict, and its retry finds the
// call finished.
func (d *DB) ResolveStarted(ctx context.Context, instance string, running func(id string) bool) (int, error) {
	var ids []string
	err := d.view(ctx, func(txn *dgbadger.Txn) error {
		return scan(txn, prefixOpenCall, false, nil, func(k, val []byte) (bool, error) {
			if string(val) == instance {
				ids = append(ids, string(k[len(prefixOpenCall):]))
			}
			return true, nil
		})
	})
	if err != nil {
		return 0, fmt.Errorf("resolving started calls: %w", err)
	}
	n := 0
	for _, id := range ids {
		if running(id) {
			continue
		}
		marked := false
		err := d.update(ctx, func(txn *dgbadger.Txn) error {
			var err error
			marked, err = d.resolveStarted(txn, id, instance, running)
			return err
		})
		if marked {
			d.changed(err, store.ChangeCall, id)
		}
		if err != nil {
			return n, fmt.Errorf("resolving started calls: %s: %w", id, err)
		}
		if marked {
			n++
		}
	}
	return n, nil
}

// resolveStarted marks the call id outcome_unknown if instance still has
// it started and running does not report it.
func (d *DB) resolveStarted(txn *dgbadger.Txn, id, instance string, running func(string) bool) (bool, error) {
	var rec store.CallRecord
	k, exp, ok, err := getIndexed(txn, key(prefixCall, id), &rec)
	if err != nil || !ok || rec.Status != store.StatusStarted || rec.Instance != instance || running(id) {
		return false, err
	}
	rec.Status = store.StatusOutcomeUnknown
	if err := d.writeCall(txn, k, rec, exp); err != nil {
		return false, err
	}
	return true, d.markReplayUnknown(txn, rec)
}
