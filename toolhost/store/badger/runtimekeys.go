package badger

import (
	"context"
	"fmt"
	"time"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/toolhost/store"
)

// CreateKey stores the new runtime key k under its name, which must pass
// [store.ValidName]; its Hash must be 64 lower-case hex digits (the only
// form of the key ever written). A name held by a live key fails with
// [store.ErrExists]: keys are never replaced by a create, so a client's
// key cannot be swapped for another under its name. Zero CreatedAt and
// UpdatedAt are now; a key with ExpiresAt expires then.
func (d *DB) CreateKey(ctx context.Context, k store.RuntimeKey) error {
	bk := key(prefixRuntimeKey, k.Name)
	d.keyWrites.Lock()
	defer d.keyWrites.Unlock()
	err := d.update(ctx, func(txn *dgbadger.Txn) error {
		// keyWrites orders this process's creates; the read would also
		// make two creates of one name conflict, so the loser's second
		// run finds the winner's key.
		_, ok, err := getLiveKey(txn, bk, d.now())
		if err != nil {
			return err
		}
		if ok {
			return store.ErrExists
		}
		return d.putJSON(txn, bk, k, keyExpiry(k.ExpiresAt))
	})
	d.changed(err, store.ChangeKeys, k.Name)
	return wrapErr("creating key", k.Name, err)
}

// UpdateKey replaces the scopes, limits and expiry of the live key
// k.Name with k's, in one transaction: of two concurrent updates, the
// later commit is the record. k.Hash, k.CreatedAt and k.UpdatedAt are
// ignored: a key's hash never changes (a new key is a new name), and
// UpdatedAt becomes now. [store.ErrNotFound] when there is no such key
// (or it expired). It returns the record as stored.
func (d *DB) UpdateKey(ctx context.Context, k store.RuntimeKey) (store.RuntimeKey, error) {
	bk := key(prefixRuntimeKey, k.Name)
	var out store.RuntimeKey
	d.keyWrites.Lock()
	defer d.keyWrites.Unlock()
	err := d.update(ctx, func(txn *dgbadger.Txn) error {
		now := d.now()
		old, ok, err := getLiveKey(txn, bk, now)
		if err != nil {
			return err
		}
		if !ok {
			return store.ErrNotFound
		}
		next := k // fn may run again: k stays as the caller sent it
		next.Hash, next.CreatedAt, next.UpdatedAt = old.Hash, old.CreatedAt, now
		out = next
		return d.putJSON(txn, bk, next, keyExpiry(next.ExpiresAt))
	})
	d.changed(err, store.ChangeKeys, k.Name)
	if err != nil {
		return store.RuntimeKey{}, wrapErr("updating key", k.Name, err)
	}
	return out, nil
}

// DeleteKey removes the runtime key name and reports whether a live one
// existed.
func (d *DB) DeleteKey(ctx context.Context, name string) (bool, error) {
	bk := key(prefixRuntimeKey, name)
	existed := false
	d.keyWrites.Lock()
	defer d.keyWrites.Unlock()
	err := d.update(ctx, func(txn *dgbadger.Txn) error {
		_, ok, err := getLiveKey(txn, bk, d.now())
		if err != nil {
			return err
		}
		existed = ok
		// Deleted even when past its ExpiresAt but not yet dropped by
		// badger: nothing of it should linger.
		return txn.Delete(bk)
	})
	d.changed(err, store.ChangeKeys, name)
	if err != nil {
		return false, wrapErr("deleting key", name, err)
	}
	return existed, nil
}

// Keys lists the live runtime keys by name.
func (d *DB) Keys(ctx context.Context) ([]store.RuntimeKey, error) {
	var out []store.RuntimeKey
	err := d.view(ctx, func(txn *dgbadger.Txn) error {
		now := d.now()
		return scanJSON(txn, prefixRuntimeKey, false, nil, func(_ []byte, k store.RuntimeKey) (bool, error) {
			if liveKey(k, now) {
				out = append(out, k)
			}
			return true, nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("listing keys: %w", err)
	}
	return out, nil
}

// getLiveKey reads the runtime key under bk; false when there is none or
// it expired by now.
func getLiveKey(txn *dgbadger.Txn, bk []byte, now time.Time) (store.RuntimeKey, bool, error) {
	var k store.RuntimeKey
	ok, err := getJSON(txn, bk, &k)
	if err != nil || !ok || !liveKey(k, now) {
		return store.RuntimeKey{}, false, err
	}
	return k, true, nil
}

// liveKey reports whether k still works at now. badger's expiry has
// whole seconds and [keyExpiry] rounds up, so an entry may outlive its
// ExpiresAt by up to a second; this is the exact check.
func liveKey(k store.RuntimeKey, now time.Time) bool {
	return k.ExpiresAt == nil || now.Before(*k.ExpiresAt)
}

// keyExpiry is the badger expiry of a key that stops working at at: never
// when at is nil, else at rounded up to the second. badger's expiry
// counts from the start of its second, so [expireAt]'s rounding down
// would drop a key up to a second before it stopped working.
func keyExpiry(at *time.Time) uint64 {
	if at == nil {
		return 0
	}
	sec := at.Unix()
	if at.Nanosecond() > 0 {
		sec++
	}
	return uint64(max(sec, 1)) // before 1970: long past, as in expireAt
}
