package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/toolhost/store"
)

// StartCall writes rec with Status started and, when ref is not nil, its
// replay rows, in one transaction that is committed — durable, as
// PostgreSQL commits are — when StartCall returns. rec.ID, and the
// attempts of ref, must pass [store.ValidName].
func (d *DB) StartCall(ctx context.Context, rec store.CallRecord, ref *store.AttemptRef) error {
	if err := checkCall(rec, ref); err != nil {
		return fmt.Errorf("starting call: %w", err)
	}
	rec.Status = store.StatusStarted
	if rec.StartedAt.IsZero() {
		rec.StartedAt = d.now()
	}
	if ref != nil && rec.Attempt == "" {
		rec.Attempt = ref.Attempt
	}
	err := d.update(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if err := d.insertCall(ctx, tx, rec); err != nil {
			return err
		}
		return d.putReplay(ctx, tx, rec, ref)
	})
	return wrapErr("starting call", rec.ID, err)
}

// FinishCall replaces a started record with its final state, keeping its
// place in the log and its expiry, and updates its replay rows when ref
// is set. A zero StartedAt keeps the stored one. [store.ErrNotFound] when
// the record is gone (or expired).
func (d *DB) FinishCall(ctx context.Context, rec store.CallRecord, ref *store.AttemptRef) error {
	if err := checkCall(rec, ref); err != nil {
		return fmt.Errorf("finishing call: %w", err)
	}
	err := d.update(ctx, func(ctx context.Context, tx pgx.Tx) error {
		var old store.CallRecord
		ok, err := getJSON(ctx, tx, &old, `SELECT body FROM calls WHERE id = $1 AND expires_at > $2 FOR UPDATE`, rec.ID, d.now())
		if err != nil {
			return err
		}
		if !ok {
			return store.ErrNotFound
		}
		rec := rec
		if rec.StartedAt.IsZero() {
			rec.StartedAt = old.StartedAt
		}
		if err := d.updateCall(ctx, tx, rec); err != nil {
			return err
		}
		if err := d.putReplay(ctx, tx, rec, ref); err != nil {
			return err
		}
		return notify(ctx, tx, store.ChangeCall, rec.ID)
	})
	return wrapErr("finishing call", rec.ID, err)
}

// RecordCall writes a call that never reached an executor, final as it
// is, expiring storage.audit_retention after StartedAt (now when zero).
func (d *DB) RecordCall(ctx context.Context, rec store.CallRecord) error {
	if err := checkCall(rec, nil); err != nil {
		return fmt.Errorf("recording call: %w", err)
	}
	if rec.StartedAt.IsZero() {
		rec.StartedAt = d.now()
	}
	err := d.update(ctx, func(ctx context.Context, tx pgx.Tx) error {
		return d.insertCall(ctx, tx, rec)
	})
	return wrapErr("recording call", rec.ID, err)
}

// Call returns one audit record by id; false when there is none (or it
// expired).
func (d *DB) Call(ctx context.Context, id string) (store.CallRecord, bool, error) {
	if err := checkNames("call record id", id); err != nil {
		return store.CallRecord{}, false, fmt.Errorf("reading call: %w", err)
	}
	var rec store.CallRecord
	found := false
	err := d.view(ctx, func(ctx context.Context, q querier) error {
		var err error
		found, err = getJSON(ctx, q, &rec, `SELECT body FROM calls WHERE id = $1 AND expires_at > $2`, id, d.now())
		return err
	})
	if err != nil || !found {
		return store.CallRecord{}, false, wrapErr("reading call", id, err)
	}
	return rec, true, nil
}

// insertCall writes rec as a new record, replacing one of the same id
// (as a second write of an id does in the badger backend), expiring
// storage.audit_retention after its StartedAt.
func (d *DB) insertCall(ctx context.Context, tx pgx.Tx, rec store.CallRecord) error {
	body, err := marshal(rec)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO calls (id, started_ns, tool, status, instance, body, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (id) DO UPDATE SET started_ns = excluded.started_ns, tool = excluded.tool, status = excluded.status,
			instance = excluded.instance, body = excluded.body, expires_at = excluded.expires_at`,
		rec.ID, unixNanos(rec.StartedAt), rec.Tool, rec.Status, rec.Instance, body, rec.StartedAt.Add(d.auditRetention))
	return err
}

// updateCall replaces the body of the stored record rec.ID, keeping its
// place in the log and its expiry.
func (d *DB) updateCall(ctx context.Context, tx pgx.Tx, rec store.CallRecord) error {
	body, err := marshal(rec)
	if err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, `UPDATE calls SET tool = $2, status = $3, instance = $4, body = $5 WHERE id = $1`,
		rec.ID, rec.Tool, rec.Status, rec.Instance, body)
	if err == nil && tag.RowsAffected() == 0 {
		err = store.ErrNotFound
	}
	return err
}

// checkCall checks the ids of a call and its retry groups.
func checkCall(rec store.CallRecord, ref *store.AttemptRef) error {
	if err := checkNames("call record id", rec.ID); err != nil {
		return err
	}
	if ref != nil {
		if err := checkNames("attempt", ref.Attempt); err != nil {
			return err
		}
		if ref.Also != "" {
			return checkNames("attempt", ref.Also)
		}
	}
	return nil
}
