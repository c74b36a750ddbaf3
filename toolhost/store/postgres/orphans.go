package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/toolhost/store"
)

// ResolveStarted marks outcome_unknown the calls the live instance left
// started whose ids running does not report (see
// [store.Lifecycle.ResolveStarted]). Each is resolved in a transaction of its
// own that locks its row and asks running then: a FinishCall of the same
// call waits for that lock, and its caller still runs the call until the
// write returns, so a result is never overwritten.
func (d *DB) ResolveStarted(ctx context.Context, instance string, running func(id string) bool) (int, error) {
	n := 0
	err := d.run(ctx, true, func(ctx context.Context) error {
		rows, err := d.pool.Query(ctx, `SELECT id FROM calls WHERE instance = $1 AND status = 'started' AND expires_at > $2`,
			instance, d.now())
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		for _, id := range ids {
			if running(id) {
				continue
			}
			var marked bool
			err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
				var err error
				marked, err = d.resolveStarted(ctx, tx, id, instance, running)
				return err
			})
			if err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
			if marked {
				n++
			}
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("resolving started calls: %w", err)
	}
	return n, nil
}

// resolveStarted marks the call id outcome_unknown if instance still has
// it started and running does not report it, with its row locked.
func (d *DB) resolveStarted(ctx context.Context, tx pgx.Tx, id, instance string, running func(string) bool) (bool, error) {
	var rec store.CallRecord
	ok, err := getJSON(ctx, tx, &rec, `SELECT body FROM calls WHERE id = $1 AND instance = $2 AND status = 'started'
		AND expires_at > $3 FOR UPDATE`, id, instance, d.now())
	if err != nil || !ok || running(id) {
		return false, err
	}
	rec.Status = store.StatusOutcomeUnknown
	if err := d.updateCall(ctx, tx, rec); err != nil {
		return false, err
	}
	if err := markReplayUnknown(ctx, tx, rec); err != nil {
		return false, err
	}
	return true, notify(ctx, tx, store.ChangeCall, rec.ID)
}
