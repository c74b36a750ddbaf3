package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/toolhost/store"
)

// CreateKey stores the new runtime key k under its name, which must pass
// [store.ValidName]; its Hash must be 64 lower-case hex digits (the only
// form of the key ever written). A name held by a live key fails with
// [store.ErrExists]: keys are never replaced by a create, so a client's
// key cannot be swapped for another under its name. Zero CreatedAt and
// UpdatedAt are now; a key with ExpiresAt expires then.
func (d *DB) CreateKey(ctx context.Context, k store.RuntimeKey) error {
	now := d.now()
	body, err := marshal(k)
	if err != nil {
		return wrapErr("creating key", k.Name, err)
	}
	err = d.update(ctx, func(ctx context.Context, tx pgx.Tx) error {
		// One statement decides between concurrent creates: the insert
		// that conflicts waits for the other's commit, then replaces
		// the row only if that key is past its expiry.
		tag, err := tx.Exec(ctx, `INSERT INTO runtime_keys (name, body, expires_at) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO UPDATE SET body = excluded.body, expires_at = excluded.expires_at
			WHERE runtime_keys.expires_at IS NOT NULL AND runtime_keys.expires_at <= $4`,
			k.Name, body, keyExpiry(k.ExpiresAt), now)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return store.ErrExists
		}
		return notify(ctx, tx, store.ChangeKeys, k.Name)
	})
	return wrapErr("creating key", k.Name, err)
}

// UpdateKey replaces the scopes, limits and expiry of the live key
// k.Name with k's, in one transaction that locks its row: of two
// concurrent updates, the later commit is the record. k.Hash,
// k.CreatedAt and k.UpdatedAt are ignored: a key's hash never changes (a
// new key is a new name), and UpdatedAt becomes now.
// [store.ErrNotFound] when there is no such key (or it expired). It
// returns the record as stored.
func (d *DB) UpdateKey(ctx context.Context, k store.RuntimeKey) (store.RuntimeKey, error) {
	var out store.RuntimeKey
	err := d.update(ctx, func(ctx context.Context, tx pgx.Tx) error {
		var old store.RuntimeKey
		ok, err := getJSON(ctx, tx, &old, `SELECT body FROM runtime_keys WHERE name = $1 FOR UPDATE`, k.Name)
		if err != nil {
			return err
		}
		now := d.now()
		if !ok || !liveKey(old, now) {
			return store.ErrNotFound
		}
		next := k
		next.Hash, next.CreatedAt, next.UpdatedAt = old.Hash, old.CreatedAt, now
		body, err := marshal(next)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE runtime_keys SET body = $2, expires_at = $3 WHERE name = $1`,
			k.Name, body, keyExpiry(next.ExpiresAt)); err != nil {
			return err
		}
		out = next
		return notify(ctx, tx, store.ChangeKeys, k.Name)
	})
	if err != nil {
		return store.RuntimeKey{}, wrapErr("updating key", k.Name, err)
	}
	return out, nil
}

// DeleteKey removes a key and reports whether a live one existed. A key
// past its expiry is deleted too: nothing of it should linger.
func (d *DB) DeleteKey(ctx context.Context, name string) (bool, error) {
	existed := false
	err := d.update(ctx, func(ctx context.Context, tx pgx.Tx) error {
		var old store.RuntimeKey
		ok, err := getJSON(ctx, tx, &old, `DELETE FROM runtime_keys WHERE name = $1 RETURNING body`, name)
		if err != nil {
			return err
		}
		existed = ok && liveKey(old, d.now())
		return notify(ctx, tx, store.ChangeKeys, name)
	})
	if err != nil {
		return false, wrapErr("deleting key", name, err)
	}
	return existed, nil
}

// Keys lists the live runtime keys by name.
func (d *DB) Keys(ctx context.Context) ([]store.RuntimeKey, error) {
	var all []store.RuntimeKey
	now := d.now()
	err := d.view(ctx, func(ctx context.Context, q querier) error {
		var err error
		all, err = listJSON[store.RuntimeKey](ctx, q, `SELECT body FROM runtime_keys
			WHERE expires_at IS NULL OR expires_at > $1 ORDER BY name`, now)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("listing keys: %w", err)
	}
	var out []store.RuntimeKey
	for _, k := range all {
		if liveKey(k, now) {
			out = append(out, k)
		}
	}
	return out, nil
}

// liveKey reports whether k still works at now: the exact check, which
// the rounded expires_at column only approaches.
func liveKey(k store.RuntimeKey, now time.Time) bool {
	return k.ExpiresAt == nil || now.Before(*k.ExpiresAt)
}

// keyExpiry is the expires_at of a key that stops working at at: NULL
// when never, else at rounded up to the microsecond PostgreSQL keeps, so
// the row outlives the key rather than ending it early.
func keyExpiry(at *time.Time) *time.Time {
	if at == nil {
		return nil
	}
	t := at.Truncate(time.Microsecond)
	if t.Before(*at) {
		t = t.Add(time.Microsecond)
	}
	return &t
}
