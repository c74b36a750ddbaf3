package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/toolhost/store"
)

// replayRows are the rows that file rec under ref's attempt, expiring
// ref.TTL after the replay's StartedAt, and under ref.Also for ref.AlsoTTL
// when set; nil when ref is. The replay takes its id and status from rec,
// and its start too when it has none.
func (d *DB) replayRows(rec store.CallRecord, ref *store.AttemptRef) (*replayRows, error) {
	if ref == nil {
		return nil, nil
	}
	r := ref.Replay
	r.AuditID, r.Status = rec.ID, rec.Status
	if r.StartedAt.IsZero() {
		r.StartedAt = rec.StartedAt
	}
	body, err := marshal(r)
	if err != nil {
		return nil, err
	}
	rows := &replayRows{body: body, attempts: []string{ref.Attempt}, expires: []time.Time{r.StartedAt.Add(ref.TTL)}}
	// Once: one statement may not write a row twice.
	if ref.Also != "" && ref.Also != ref.Attempt {
		rows.attempts = append(rows.attempts, ref.Also)
		rows.expires = append(rows.expires, r.StartedAt.Add(ref.AlsoTTL))
	}
	return rows, nil
}

// replayRows are one call's replay rows, as arrays a statement unnests:
// the same body under each attempt, with that attempt's expiry.
type replayRows struct {
	body     string
	attempts []string
	expires  []time.Time
}

// putReplay writes the replay rows of rec under ref in tx; nothing when
// ref is nil.
func (d *DB) putReplay(ctx context.Context, tx pgx.Tx, rec store.CallRecord, ref *store.AttemptRef) error {
	rows, err := d.replayRows(rec, ref)
	if err != nil || rows == nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO replays (attempt, call_id, body, expires_at)
		SELECT a.attempt, $1, $2, a.expires_at FROM unnest($3::text[], $4::timestamptz[]) AS a(attempt, expires_at)
		ON CONFLICT (attempt, call_id) DO UPDATE SET body = excluded.body, expires_at = excluded.expires_at`,
		rec.ID, rows.body, rows.attempts, rows.expires)
	return err
}

// Replays returns the calls filed under attempt, oldest first.
func (d *DB) Replays(ctx context.Context, attempt string) ([]store.Replay, error) {
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
