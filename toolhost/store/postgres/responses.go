package postgres

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/toolhost/store"
)

// SaveResponse stores rec under its key id and id, and one item row per
// item id, in one transaction, all expiring together
// storage.turn_retention after rec.CreatedAt (now when zero). Saving an
// id again replaces the record; an item the new record no longer lists
// stops finding it. Its JSON fields are stored as they are and read back
// the same bytes (the body is text, not jsonb). An empty id or item id
// fails with [store.ErrInvalidKey]; a record over 16 MiB with
// [store.ErrTooLarge].
func (d *DB) SaveResponse(ctx context.Context, rec store.ResponseRecord) error {
	exp := rec.CreatedAt.Add(d.turnRetention)
	val, err := store.MarshalResponseRecord(&rec)
	if err != nil {
		return wrapErr("saving response", rec.ID, err)
	}
	body, err := sized(val)
	if err != nil {
		return wrapErr("saving response", rec.ID, err)
	}
	key, id := hashed(rec.KeyID), hashed(rec.ID)
	err = d.update(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO responses (key_hash, id_hash, body, expires_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (key_hash, id_hash) DO UPDATE SET body = excluded.body, expires_at = excluded.expires_at`,
			key, id, body, exp); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM response_items WHERE key_hash = $1 AND id_hash = $2`, key, id); err != nil {
			return err
		}
		// In one order, so that two responses sharing item ids lock them
		// alike rather than deadlock.
		b := &pgx.Batch{}
		for _, item := range slices.Sorted(maps.Keys(rec.Items)) {
			b.Queue(`INSERT INTO response_items (key_hash, item_hash, id_hash, expires_at) VALUES ($1, $2, $3, $4)
				ON CONFLICT (key_hash, item_hash) DO UPDATE SET id_hash = excluded.id_hash, expires_at = excluded.expires_at`,
				key, hashed(item), id, exp)
		}
		return tx.SendBatch(ctx, b).Close()
	})
	return wrapErr("saving response", rec.ID, err)
}

// Response returns the response id that keyID saved. false means none, it
// expired, or another key saved it: the key id is part of the row's key,
// so one key never reaches another's responses.
func (d *DB) Response(ctx context.Context, keyID, id string) (store.ResponseRecord, bool, error) {
	var rec store.ResponseRecord
	if id == "" {
		return rec, false, nil
	}
	found := false
	err := d.view(ctx, func(ctx context.Context, q querier) error {
		var err error
		found, err = getJSON(ctx, q, &rec, `SELECT body FROM responses
			WHERE key_hash = $1 AND id_hash = $2 AND expires_at > $3`, hashed(keyID), hashed(id), d.now())
		return err
	})
	if err != nil || !found {
		return store.ResponseRecord{}, false, wrapErr("reading response", id, err)
	}
	return rec, true, nil
}

// ResponseByItem returns keyID's response whose Items hold itemID.
func (d *DB) ResponseByItem(ctx context.Context, keyID, itemID string) (store.ResponseRecord, bool, error) {
	var rec store.ResponseRecord
	if itemID == "" {
		return rec, false, nil
	}
	found := false
	err := d.view(ctx, func(ctx context.Context, q querier) error {
		var err error
		found, err = getJSON(ctx, q, &rec, `SELECT r.body FROM response_items i
			JOIN responses r ON r.key_hash = i.key_hash AND r.id_hash = i.id_hash
			WHERE i.key_hash = $1 AND i.item_hash = $2 AND i.expires_at > $3 AND r.expires_at > $3`,
			hashed(keyID), hashed(itemID), d.now())
		return err
	})
	if err != nil {
		return store.ResponseRecord{}, false, wrapErr("finding response of item", itemID, err)
	}
	if _, listed := rec.Items[itemID]; !found || !listed {
		return store.ResponseRecord{}, false, nil
	}
	return rec, true, nil
}

// DeleteResponse removes keyID's response id and its item rows, and
// reports whether it existed (and had not expired).
func (d *DB) DeleteResponse(ctx context.Context, keyID, id string) (bool, error) {
	if id == "" {
		return false, nil
	}
	key, hid := hashed(keyID), hashed(id)
	existed := false
	err := d.update(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM response_items WHERE key_hash = $1 AND id_hash = $2`, key, hid); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `DELETE FROM responses WHERE key_hash = $1 AND id_hash = $2 RETURNING expires_at > $3`,
			key, hid, d.now()).Scan(&existed)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return false, wrapErr("deleting response", id, err)
	}
	return existed, nil
}
