package badger

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/toolhost/store"
)

// SaveTurn stores rec and one index entry per key in one transaction, all
// expiring together storage.turn_retention after rec.CreatedAt (now when
// zero). Saving an id again replaces the record; a key the new record no
// longer lists stops finding it. An empty id or key fails with
// [store.ErrInvalidKey]; a record whose JSON is over 1 MiB in memory mode
// (64 MiB on disk) with [store.ErrTooLarge].
func (d *DB) SaveTurn(ctx context.Context, rec store.TurnRecord) error {
	val, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("saving turn %s: %w", rec.ID, err)
	}
	exp := expireAt(rec.CreatedAt.Add(d.turnRetention))
	id := []byte(rec.ID)
	err = d.update(ctx, func(txn *dgbadger.Txn) error {
		if err := d.put(txn, key(prefixTurn, hashed(rec.ID)), val, exp); err != nil {
			return err
		}
		for _, k := range rec.Keys {
			if err := d.put(txn, key(prefixTurnKey, hashed(k)), id, exp); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("saving turn %s: %w", rec.ID, err)
	}
	return nil
}

// FindTurn returns the turn that lists key among its Keys. false means no
// such turn, or it expired.
func (d *DB) FindTurn(ctx context.Context, lookup string) (store.TurnRecord, bool, error) {
	if lookup == "" {
		return store.TurnRecord{}, false, nil
	}
	var rec store.TurnRecord
	found := false
	err := d.view(ctx, func(txn *dgbadger.Txn) error {
		id, _, ok, err := getRaw(txn, key(prefixTurnKey, hashed(lookup)))
		if err != nil || !ok {
			return err
		}
		ok, err = getJSON(txn, key(prefixTurn, hashed(string(id))), &rec)
		if err != nil || !ok {
			return err
		}
		// An index entry outlives a key dropped by a later save of the
		// same turn; only the record's own list counts.
		found = slices.Contains(rec.Keys, lookup)
		return nil
	})
	if err != nil {
		return store.TurnRecord{}, false, fmt.Errorf("finding turn: %w", err)
	}
	if !found {
		return store.TurnRecord{}, false, nil
	}
	return rec, true, nil
}
