package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/toolhost/store"
)

// putReplay files rec under ref's attempt, expiring ref.TTL after the
// replay's StartedAt, and under ref.Also for ref.AlsoTTL when set.
// Nothing happens when ref is nil. The replay takes its id and status
// from rec, and its start too when it has none.
func (d *DB) putReplay(ctx context.Context, tx pgx.Tx, rec store.CallRecord, ref *store.AttemptRef) error {
	if ref == nil {
		return nil
	}
	r := ref.Replay
	r.AuditID, r.Status = rec.ID, rec.Status
	if r.StartedAt.IsZero() {
		r.StartedAt = rec.StartedAt
	}
	body, err := marshal(r)
	if err != nil {
		return err
	}
	const upsert = `INSERT INTO replays (attempt, call_id, body, expires_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (attempt, call_id) DO UPDATE SET body = excluded.body, expires_at = excluded.expires_at`
	if _, err := tx.Exec(ctx, upsert, ref.Attempt, rec.ID, body, r.StartedAt.Add(ref.TTL)); err != nil {
		return err
	}
	if ref.Also == "" || ref.Also == ref.Attempt {
		return nil
	}
	_, err = tx.Exec(ctx, upsert, ref.Also, rec.ID, body, r.StartedAt.Add(ref.AlsoTTL))
	return err
}

// Replays returns the calls filed under attempt, oldest first.
func (d *DB) Replays(ctx context.Context, attempt string) ([]store.Replay, error) {
	if err := checkNames("attempt", attempt); err != nil {
		return nil, fmt.Errorf("reading replays: %w", err)
	}
	var out []store.Replay
	err := d.view(ctx, func(ctx context.Context, q querier) error {
		var err error
		out, err = listJSON[store.Replay](ctx, q, `SELECT body FROM replays
			WHERE attempt = $1 AND expires_at > $2 ORDER BY call_id`, attempt, d.now())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading replays of %s: %w", attempt, err)
	}
	// A retry feeds results back in the order the calls ran.
	slices.SortStableFunc(out, func(a, b store.Replay) int {
		if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.AuditID, b.AuditID)
	})
	return out, nil
}

// markReplayUnknown turns the replay row of a call that Recover resolved
// into outcome_unknown, keeping its expiry; nothing when it is gone.
func markReplayUnknown(ctx context.Context, tx pgx.Tx, rec store.CallRecord) error {
	if rec.Attempt == "" || !store.ValidName(rec.Attempt) {
		return nil
	}
	var body []byte
	err := tx.QueryRow(ctx, `SELECT body FROM replays WHERE attempt = $1 AND call_id = $2 FOR UPDATE`,
		rec.Attempt, rec.ID).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	var r store.Replay
	if err := json.Unmarshal(body, &r); err != nil {
		return err
	}
	r.Status = store.StatusOutcomeUnknown
	val, err := marshal(r)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE replays SET body = $3 WHERE attempt = $1 AND call_id = $2`, rec.Attempt, rec.ID, val)
	return err
}
