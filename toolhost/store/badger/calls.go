package badger

import (
	"context"
	"fmt"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/toolhost/store"
)

// StartCall writes rec with Status started, its open/ entry for
// [DB.Recover] and, when ref is not nil, its replay entry, in one
// transaction. It is durable when it returns: see Durability in the
// package doc. rec.ID, and ref.Attempt when ref is set, must pass
// [store.ValidName].
func (d *DB) StartCall(ctx context.Context, rec store.CallRecord, ref *store.AttemptRef) error {
	exp := expireAt(rec.StartedAt.Add(d.auditRetention))
	err := d.update(ctx, func(txn *dgbadger.Txn) error {
		if err := d.writeCall(txn, timeKey(prefixAudit, rec.StartedAt, rec.ID), rec, exp); err != nil {
			return err
		}
		return d.putReplay(txn, rec, ref)
	})
	if err != nil {
		return fmt.Errorf("starting call %s: %w", rec.ID, err)
	}
	return nil
}

// FinishCall replaces a started record with its final state, under the
// same key and expiry, and updates its replay entry when ref is set. A
// zero StartedAt keeps the stored one. [store.ErrNotFound] when the record
// is gone.
func (d *DB) FinishCall(ctx context.Context, rec store.CallRecord, ref *store.AttemptRef) error {
	err := d.update(ctx, func(txn *dgbadger.Txn) error {
		var old store.CallRecord
		k, exp, ok, err := getIndexed(txn, key(prefixCall, rec.ID), &old)
		if err != nil {
			return err
		}
		if !ok {
			return store.ErrNotFound
		}
		rec := rec // fn may run again; keep the caller's record intact
		if rec.StartedAt.IsZero() {
			rec.StartedAt = old.StartedAt
		}
		if err := d.writeCall(txn, k, rec, exp); err != nil {
			return err
		}
		return d.putReplay(txn, rec, ref)
	})
	d.changed(err, store.ChangeCall, rec.ID)
	if err != nil {
		return fmt.Errorf("finishing call %s: %w", rec.ID, err)
	}
	return nil
}

// RecordCall writes a call that never reached an executor, final as it
// is, expiring storage.audit_retention after StartedAt (now when zero).
func (d *DB) RecordCall(ctx context.Context, rec store.CallRecord) error {
	exp := expireAt(rec.StartedAt.Add(d.auditRetention))
	err := d.update(ctx, func(txn *dgbadger.Txn) error {
		return d.writeCall(txn, timeKey(prefixAudit, rec.StartedAt, rec.ID), rec, exp)
	})
	if err != nil {
		return fmt.Errorf("recording call %s: %w", rec.ID, err)
	}
	return nil
}

// Call returns one audit record by id; false when there is none (or it
// expired).
func (d *DB) Call(ctx context.Context, id string) (store.CallRecord, bool, error) {
	rec, found, err := readIndexed[store.CallRecord](ctx, d, key(prefixCall, id))
	return rec, found, wrapErr("reading call", id, err)
}

// writeCall writes rec under its audit key k with its id index, and keeps
// its open/ entry while it is started or pending approval: the two states
// a process that dies leaves for [DB.Recover].
func (d *DB) writeCall(txn *dgbadger.Txn, k []byte, rec store.CallRecord, exp uint64) error {
	if err := d.putIndexed(txn, key(prefixCall, rec.ID), k, rec, exp); err != nil {
		return err
	}
	open := rec.Status == store.StatusStarted || rec.Status == store.StatusPendingApproval
	return d.setOpen(txn, key(prefixOpenCall, rec.ID), open, rec.Instance, exp)
}

// wrapErr adds the operation and id to a non-nil err.
func wrapErr(op, id string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s %s: %w", op, id, err)
}
