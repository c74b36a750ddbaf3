package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/toolhost/store"
)

// StartCall writes rec with Status started and, when ref is not nil, its
// replay rows, in one transaction that is committed — durable, as
// PostgreSQL commits are — when StartCall returns. rec.ID, and the
// attempts of ref, must pass [store.ValidName].
func (d *DB) StartCall(ctx context.Context, rec store.CallRecord, ref *store.AttemptRef) error {
	body, err := marshal(rec)
	if err != nil {
		return wrapErr("starting call", rec.ID, err)
	}
	replays, err := d.replayRows(rec, ref)
	if err != nil {
		return wrapErr("starting call", rec.ID, err)
	}
	err = d.write(ctx, func(ctx context.Context, q querier) error {
		if replays == nil {
			return d.insertCall(ctx, q, rec, body)
		}
		// One statement, so one round trip that commits on its own: the
		// write-ahead record must be durable before the tool runs, and
		// a BEGIN and COMMIT of their own would cost two more.
		_, err := q.Exec(ctx, `WITH c AS (`+insertCallSQL+`)
			INSERT INTO replays (attempt, call_id, body, expires_at)
			SELECT a.attempt, $1, $8, a.expires_at FROM unnest($9::text[], $10::timestamptz[]) AS a(attempt, expires_at)
			ON CONFLICT (attempt, call_id) DO UPDATE SET body = excluded.body, expires_at = excluded.expires_at`,
			append(d.callArgs(rec, body), replays.body, replays.attempts, replays.expires)...)
		return err
	})
	return wrapErr("starting call", rec.ID, err)
}

// FinishCall replaces a started record with its final state, keeping its
// place in the log and its expiry, and updates its replay rows when ref
// is set. A zero StartedAt keeps the stored one. [store.ErrNotFound] when
// the record is gone (or expired).
func (d *DB) FinishCall(ctx context.Context, rec store.CallRecord, ref *store.AttemptRef) error {
	if rec.StartedAt.IsZero() {
		// The record keeps its stored start, which only a read can tell.
		return wrapErr("finishing call", rec.ID, d.finishUnstarted(ctx, rec, ref))
	}
	body, err := marshal(rec)
	if err != nil {
		return wrapErr("finishing call", rec.ID, err)
	}
	replays, err := d.replayRows(rec, ref)
	if err != nil {
		return wrapErr("finishing call", rec.ID, err)
	}
	if replays == nil {
		replays = &replayRows{} // no rows to unnest
	}
	err = d.write(ctx, func(ctx context.Context, q querier) error {
		// One statement, a transaction of its own: the replay rows and
		// the notification come only with the record's update, and the
		// notification goes out with the commit.
		var n int
		err := q.QueryRow(ctx, `WITH c AS (
				UPDATE calls SET tool = $2, status = $3, instance = $4, body = $5 WHERE id = $1 AND expires_at > $6 RETURNING id
			), r AS (
				INSERT INTO replays (attempt, call_id, body, expires_at)
				SELECT a.attempt, c.id, $7, a.expires_at FROM c, unnest($8::text[], $9::timestamptz[]) AS a(attempt, expires_at)
				ON CONFLICT (attempt, call_id) DO UPDATE SET body = excluded.body, expires_at = excluded.expires_at
			)
			SELECT count(pg_notify($10, $11)) FROM c`,
			rec.ID, rec.Tool, rec.Status, rec.Instance, body, d.now(),
			replays.body, replays.attempts, replays.expires, changesChannel, payload(store.ChangeCall, rec.ID)).Scan(&n)
		if err == nil && n == 0 {
			err = store.ErrNotFound
		}
		return err
	})
	return wrapErr("finishing call", rec.ID, err)
}

// finishUnstarted is FinishCall of a record without a start, which keeps
// the stored one.
func (d *DB) finishUnstarted(ctx context.Context, rec store.CallRecord, ref *store.AttemptRef) error {
	return d.update(ctx, func(ctx context.Context, tx pgx.Tx) error {
		var old store.CallRecord
		ok, err := getJSON(ctx, tx, &old, `SELECT body FROM calls WHERE id = $1 AND expires_at > $2 FOR UPDATE`, rec.ID, d.now())
		if err != nil {
			return err
		}
		if !ok {
			return store.ErrNotFound
		}
		rec.StartedAt = old.StartedAt
		if err := d.updateCall(ctx, tx, rec); err != nil {
			return err
		}
		if err := d.putReplay(ctx, tx, rec, ref); err != nil {
			return err
		}
		return notify(ctx, tx, store.ChangeCall, rec.ID)
	})
}

// RecordCall writes a call that never reached an executor, final as it
// is, expiring storage.audit_retention after StartedAt (now when zero).
func (d *DB) RecordCall(ctx context.Context, rec store.CallRecord) error {
	body, err := marshal(rec)
	if err != nil {
		return wrapErr("recording call", rec.ID, err)
	}
	err = d.write(ctx, func(ctx context.Context, q querier) error {
		return d.insertCall(ctx, q, rec, body)
	})
	return wrapErr("recording call", rec.ID, err)
}

// Call returns one audit record by id; false when there is none (or it
// expired).
func (d *DB) Call(ctx context.Context, id string) (store.CallRecord, bool, error) {
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

// insertCallSQL writes a call as a new record, replacing one of the same
// id (as a second write of an id does in the badger backend), from the
// arguments of [DB.callArgs].
const insertCallSQL = `INSERT INTO calls (id, started_ns, tool, status, instance, body, expires_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7)
	ON CONFLICT (id) DO UPDATE SET started_ns = excluded.started_ns, tool = excluded.tool, status = excluded.status,
		instance = excluded.instance, body = excluded.body, expires_at = excluded.expires_at`

// callArgs are the arguments of insertCallSQL: rec with its JSON body,
// expiring storage.audit_retention after its StartedAt.
func (d *DB) callArgs(rec store.CallRecord, body string) []any {
	return []any{rec.ID, unixNanos(rec.StartedAt), rec.Tool, rec.Status, rec.Instance, body, rec.StartedAt.Add(d.auditRetention)}
}

// insertCall writes rec, whose JSON is body, as insertCallSQL does.
func (d *DB) insertCall(ctx context.Context, q querier, rec store.CallRecord, body string) error {
	_, err := q.Exec(ctx, insertCallSQL, d.callArgs(rec, body)...)
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
