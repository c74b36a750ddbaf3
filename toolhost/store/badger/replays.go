package badger

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/toolhost/store"
)

// replayKey is attempt/<attempt>/<call record id>. The "/" after the
// attempt keeps attempt "a" from listing the calls of attempt "ab".
func replayKey(attempt, id string) []byte {
	return key(prefixAttempt, attempt, "/", id)
}

// putReplay files rec under ref's attempt, expiring ref.TTL after the
// replay's StartedAt, and under ref.Also for ref.AlsoTTL when set. Nothing happens when ref is nil. The replay takes
// its id and status from rec, and its start too when it has none.
func (d *DB) putReplay(txn *dgbadger.Txn, rec store.CallRecord, ref *store.AttemptRef) error {
	if ref == nil {
		return nil
	}
	r := ref.Replay
	r.AuditID, r.Status = rec.ID, rec.Status
	if r.StartedAt.IsZero() {
		r.StartedAt = rec.StartedAt
	}
	if err := d.putJSON(txn, replayKey(ref.Attempt, rec.ID), r, expireAt(r.StartedAt.Add(ref.TTL))); err != nil {
		return err
	}
	if ref.Also == "" || ref.Also == ref.Attempt {
		return nil
	}
	return d.putJSON(txn, replayKey(ref.Also, rec.ID), r, expireAt(r.StartedAt.Add(ref.AlsoTTL)))
}

// Replays returns the calls filed under attempt, oldest first.
func (d *DB) Replays(ctx context.Context, attempt string) ([]store.Replay, error) {
	var out []store.Replay
	err := d.view(ctx, func(txn *dgbadger.Txn) error {
		return scanJSON(txn, string(replayKey(attempt, "")), false, nil, func(_ []byte, r store.Replay) (bool, error) {
			out = append(out, r)
			return true, nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("reading replays of %s: %w", attempt, err)
	}
	// Keys order by call record id; a retry feeds results back in the
	// order the calls ran.
	slices.SortStableFunc(out, func(a, b store.Replay) int {
		if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.AuditID, b.AuditID)
	})
	return out, nil
}

// markReplayUnknown turns the replay entry of a call that Recover resolved
// into outcome_unknown, keeping its expiry; nothing when it is gone.
func (d *DB) markReplayUnknown(txn *dgbadger.Txn, rec store.CallRecord) error {
	if rec.Attempt == "" || !store.ValidName(rec.Attempt) {
		return nil
	}
	k := replayKey(rec.Attempt, rec.ID)
	raw, exp, ok, err := getRaw(txn, k)
	if err != nil || !ok {
		return err
	}
	var r store.Replay
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	r.Status = store.StatusOutcomeUnknown
	return d.putJSON(txn, k, r, exp)
}
