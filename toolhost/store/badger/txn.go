package badger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/toolhost/store"
)

// updateAttempts bounds the runs of a transaction that lost a race
// ([dgbadger.ErrConflict]) to another writer of a key it read.
const updateAttempts = 8

// view runs fn in a read-only transaction.
func (d *DB) view(ctx context.Context, fn func(txn *dgbadger.Txn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return store.ErrClosed
	}
	return d.db.View(fn)
}

// update runs fn in a read-write transaction and commits it, running it
// again (fn must be repeatable) when the commit lost a race to another
// writer of a key fn read. That is how [DB.DecideAction] stays atomic: the
// loser's second run reads the winner's decision.
func (d *DB) update(ctx context.Context, fn func(txn *dgbadger.Txn) error) (err error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return store.ErrClosed
	}
	defer func() { d.space.noteWrite(err, time.Now()) }()
	// Before badger maps a page it cannot back (space.go).
	if err := d.room(0); err != nil {
		return err
	}
	for range updateAttempts {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		err = d.db.Update(fn)
		if !errors.Is(err, dgbadger.ErrConflict) {
			return err
		}
	}
	return err
}

// expireAt is the badger expiry (Unix seconds) of an entry that lives
// until t. A time before 1970 would wrap around in badger's unsigned field
// and never expire, so it is clamped to the first second, long past.
func expireAt(t time.Time) uint64 {
	return uint64(max(t.Unix(), 1))
}

// put writes val under k, expiring at the given Unix second (0: never).
// Sizes are checked here rather than left to badger, whose error for an
// oversized value carries a hex dump of it: conversation text that must
// not reach a log.
func (d *DB) put(txn *dgbadger.Txn, k, val []byte, expiresAt uint64) error {
	if len(val) > d.maxValue {
		return fmt.Errorf("%w: value of %d bytes, limit %d", store.ErrTooLarge, len(val), d.maxValue)
	}
	if len(val) >= valueThreshold {
		// Bound for the value log: a turn record may be megabytes,
		// far more than what the margin of update's check leaves.
		if err := d.room(len(val)); err != nil {
			return err
		}
	}
	e := dgbadger.NewEntry(k, val)
	e.ExpiresAt = expiresAt
	return txn.SetEntry(e)
}

// putJSON writes v as JSON under k, expiring at the given Unix second.
func (d *DB) putJSON(txn *dgbadger.Txn, k []byte, v any, expiresAt uint64) error {
	val, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return d.put(txn, k, val, expiresAt)
}

// getRaw returns a copy of the value under k and its expiry; false when it
// is missing or expired.
func getRaw(txn *dgbadger.Txn, k []byte) ([]byte, uint64, bool, error) {
	item, err := txn.Get(k)
	if errors.Is(err, dgbadger.ErrKeyNotFound) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	val, err := item.ValueCopy(nil)
	if err != nil {
		return nil, 0, false, err
	}
	return val, item.ExpiresAt(), true, nil
}

// getJSON decodes the JSON value under k into v; false when it is missing
// or expired.
func getJSON(txn *dgbadger.Txn, k []byte, v any) (bool, error) {
	item, err := txn.Get(k)
	if errors.Is(err, dgbadger.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := item.Value(func(val []byte) error { return json.Unmarshal(val, v) }); err != nil {
		return false, err
	}
	return true, nil
}

// getIndexed follows the index entry idx to the record it names and
// decodes it into v. It returns the record's key and the index's expiry
// (the record's too); false when either is missing or expired.
func getIndexed(txn *dgbadger.Txn, idx []byte, v any) ([]byte, uint64, bool, error) {
	k, exp, ok, err := getRaw(txn, idx)
	if err != nil || !ok {
		return nil, 0, false, err
	}
	ok, err = getJSON(txn, k, v)
	if err != nil || !ok {
		return nil, 0, false, err
	}
	return k, exp, true, nil
}

// putIndexed writes v under k and the index entry idx naming k, both
// expiring at exp. When idx named another key (a record written again
// with another time), that record is deleted, so it is listed once.
func (d *DB) putIndexed(txn *dgbadger.Txn, idx, k []byte, v any, exp uint64) error {
	old, _, ok, err := getRaw(txn, idx)
	if err != nil {
		return err
	}
	if ok && string(old) != string(k) {
		if err := txn.Delete(old); err != nil {
			return err
		}
	}
	if err := d.putJSON(txn, k, v, exp); err != nil {
		return err
	}
	return d.put(txn, idx, k, exp)
}

// setOpen keeps the open/ index entry k (value: the instance) while open
// holds, and deletes it otherwise.
func (d *DB) setOpen(txn *dgbadger.Txn, k []byte, open bool, instance string, exp uint64) error {
	if !open {
		return txn.Delete(k)
	}
	return d.put(txn, k, []byte(instance), exp)
}

// readIndexed reads the record the index entry idx names, in its own
// read-only transaction; false when there is none (or it expired).
func readIndexed[T any](ctx context.Context, d *DB, idx []byte) (T, bool, error) {
	var v T
	found := false
	err := d.view(ctx, func(txn *dgbadger.Txn) error {
		var err error
		_, _, found, err = getIndexed(txn, idx, &v)
		return err
	})
	if err != nil || !found {
		var zero T
		return zero, false, err
	}
	return v, true, nil
}

// scanJSON is [scan] decoding every value as JSON into a T.
func scanJSON[T any](txn *dgbadger.Txn, prefix string, reverse bool, from []byte, fn func(k []byte, v T) (bool, error)) error {
	return scan(txn, prefix, reverse, from, func(k, val []byte) (bool, error) {
		var v T
		if err := json.Unmarshal(val, &v); err != nil {
			return false, err
		}
		return fn(k, v)
	})
}

// scan calls fn with the value of every live key under prefix, newest
// (largest key) first when reverse is set, starting at from (inclusive)
// when it is not nil. fn returns false to stop. k and val are valid only
// during the call.
func scan(txn *dgbadger.Txn, prefix string, reverse bool, from []byte, fn func(k, val []byte) (bool, error)) error {
	opts := dgbadger.DefaultIteratorOptions
	opts.Prefix = []byte(prefix)
	opts.Reverse = reverse
	it := txn.NewIterator(opts)
	defer it.Close()
	switch {
	case from != nil:
		it.Seek(from)
	case reverse:
		it.Seek(prefixEnd(prefix))
	default:
		it.Rewind()
	}
	for ; it.Valid(); it.Next() {
		item := it.Item()
		var more bool
		err := item.Value(func(val []byte) error {
			var err error
			more, err = fn(item.Key(), val)
			return err
		})
		if err != nil || !more {
			return err
		}
	}
	return nil
}
