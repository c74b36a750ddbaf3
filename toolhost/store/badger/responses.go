package badger

import (
	"context"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/toolhost/store"
)

// SaveResponse stores rec under its key id and id, and one index entry per
// item id, in one transaction, all expiring together
// storage.turn_retention after rec.CreatedAt (now when zero). Saving an id
// again replaces the record; an item the new record no longer lists stops
// finding it. An empty id or item id fails with [store.ErrInvalidKey]; a
// record whose JSON is over 1 MiB in memory mode (64 MiB on disk) with
// [store.ErrTooLarge].
func (d *DB) SaveResponse(ctx context.Context, rec store.ResponseRecord) error {
	exp := expireAt(rec.CreatedAt.Add(d.turnRetention))
	val, err := store.MarshalResponseRecord(&rec)
	if err != nil {
		return wrapErr("saving response", rec.ID, err)
	}
	hk := d.keyHash(rec.KeyID)
	err = d.update(ctx, func(txn *dgbadger.Txn) error {
		if err := d.put(txn, responseKey(hk, rec.ID), val, exp); err != nil {
			return err
		}
		for item := range rec.Items {
			if err := d.put(txn, responseItemKey(hk, item), []byte(rec.ID), exp); err != nil {
				return err
			}
		}
		return nil
	})
	return wrapErr("saving response", rec.ID, err)
}

// Response returns the response id that keyID saved. false means none, it
// expired, or another key saved it: the key id is part of the record's
// key, so one key never reaches another's responses.
func (d *DB) Response(ctx context.Context, keyID, id string) (store.ResponseRecord, bool, error) {
	var rec store.ResponseRecord
	if id == "" {
		return rec, false, nil
	}
	found := false
	err := d.view(ctx, func(txn *dgbadger.Txn) error {
		var err error
		found, err = getJSON(txn, responseKey(d.keyHash(keyID), id), &rec)
		return err
	})
	if err != nil {
		return store.ResponseRecord{}, false, wrapErr("reading response", id, err)
	}
	if !found {
		return store.ResponseRecord{}, false, nil
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
	err := d.view(ctx, func(txn *dgbadger.Txn) error {
		hk := d.keyHash(keyID)
		id, _, ok, err := getRaw(txn, responseItemKey(hk, itemID))
		if err != nil || !ok {
			return err
		}
		ok, err = getJSON(txn, responseKey(hk, string(id)), &rec)
		if err != nil || !ok {
			return err
		}
		// An index entry outlives an item dropped by a later save of the
		// same response, and a deleted response: only the record's own
		// list counts.
		_, found = rec.Items[itemID]
		return nil
	})
	if err != nil {
		return store.ResponseRecord{}, false, wrapErr("finding response of item", itemID, err)
	}
	if !found {
		return store.ResponseRecord{}, false, nil
	}
	return rec, true, nil
}

// DeleteResponse removes keyID's response id, and the index entries of
// its items, and reports whether it existed.
func (d *DB) DeleteResponse(ctx context.Context, keyID, id string) (bool, error) {
	if id == "" {
		return false, nil
	}
	hk := d.keyHash(keyID)
	k := responseKey(hk, id)
	existed := false
	err := d.update(ctx, func(txn *dgbadger.Txn) error {
		var rec store.ResponseRecord
		ok, err := getJSON(txn, k, &rec)
		existed = ok
		if err != nil || !ok {
			return err
		}
		for item := range rec.Items {
			ik := responseItemKey(hk, item)
			owner, _, ok, err := getRaw(txn, ik)
			if err != nil {
				return err
			}
			if ok && string(owner) == id { // a later response may have taken it
				if err := txn.Delete(ik); err != nil {
					return err
				}
			}
		}
		return txn.Delete(k)
	})
	if err != nil {
		return false, wrapErr("deleting response", id, err)
	}
	return existed, nil
}

// responseKey is the key of a response id under the key id whose
// keyHash is hk: both hashed, so any text in either stays in its own
// fixed-length part.
func responseKey(hk, id string) []byte {
	return key(prefixResponse, hk, hashed(id))
}

// responseItemKey is the index entry of item itemID under the key id
// whose keyHash is hk.
func responseItemKey(hk, itemID string) []byte {
	return key(prefixResponseItem, hk, hashed(itemID))
}

// keyHashOf is a key id and its hash.
type keyHashOf struct{ id, hash string }

// keyHash is hashed(keyID), the key id's part of a response's keys. The
// last one is kept: one key, or none, asks for most responses, and
// hashing it anew was two of the four SHA-256 sums of every save.
func (d *DB) keyHash(keyID string) string {
	if k := d.lastKey.Load(); k != nil && k.id == keyID {
		return k.hash
	}
	h := hashed(keyID)
	d.lastKey.Store(&keyHashOf{id: keyID, hash: h})
	return h
}
