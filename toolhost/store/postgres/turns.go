package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/toolstream/toolstream/toolhost/store"
)

// SaveTurn stores rec and one lookup row per key in one transaction, all
// expiring together storage.turn_retention after rec.CreatedAt (now when
// zero). Saving an id again replaces the record, and the lookup rows of
// keys it no longer lists go. An empty id or key fails with
// [store.ErrInvalidKey]; a record whose JSON is over 16 MiB with
// [store.ErrTooLarge].
func (d *DB) SaveTurn(ctx context.Context, rec store.TurnRecord) error {
	body, err := marshal(rec)
	if err != nil {
		return wrapErr("saving turn", rec.ID, err)
	}
	exp := rec.CreatedAt.Add(d.turnRetention)
	id := hashed(rec.ID)
	// In one order, so that two turns sharing keys lock them alike
	// rather than deadlock; and each once, as one statement may not
	// write a row twice.
	keys := slices.Compact(slices.Sorted(slices.Values(rec.Keys)))
	hashes := make([][]byte, len(keys))
	for i, k := range keys {
		hashes[i] = hashed(k)
	}
	err = d.write(ctx, func(ctx context.Context, q querier) error {
		// One statement, a transaction of its own. The lookup rows of
		// keys the record no longer lists go; the others are written
		// over, so no row is both deleted and written.
		_, err := q.Exec(ctx, `WITH t AS (
				INSERT INTO turns (id_hash, body, expires_at) VALUES ($1, $2, $3)
				ON CONFLICT (id_hash) DO UPDATE SET body = excluded.body, expires_at = excluded.expires_at
			), gone AS (
				DELETE FROM turn_keys WHERE turn_hash = $1 AND key_hash <> ALL ($4::bytea[])
			)
			INSERT INTO turn_keys (key_hash, turn_hash, expires_at)
			SELECT k.key_hash, $1, $3 FROM unnest($4::bytea[]) WITH ORDINALITY AS k(key_hash, n) ORDER BY k.n
			ON CONFLICT (key_hash) DO UPDATE SET turn_hash = excluded.turn_hash, expires_at = excluded.expires_at`,
			id, body, exp, hashes)
		return err
	})
	return wrapErr("saving turn", rec.ID, err)
}

// FindTurn returns the live turn that lists key among its Keys.
func (d *DB) FindTurn(ctx context.Context, lookup string) (store.TurnRecord, bool, error) {
	if lookup == "" {
		return store.TurnRecord{}, false, nil
	}
	var rec store.TurnRecord
	found := false
	err := d.view(ctx, func(ctx context.Context, q querier) error {
		var err error
		found, err = getJSON(ctx, q, &rec, `SELECT t.body FROM turn_keys k JOIN turns t ON t.id_hash = k.turn_hash
			WHERE k.key_hash = $1 AND k.expires_at > $2 AND t.expires_at > $2`, hashed(lookup), d.now())
		return err
	})
	if err != nil {
		return store.TurnRecord{}, false, fmt.Errorf("finding turn: %w", err)
	}
	// The record's own list is the truth, as in the badger backend.
	if !found || !slices.Contains(rec.Keys, lookup) {
		return store.TurnRecord{}, false, nil
	}
	return rec, true, nil
}
