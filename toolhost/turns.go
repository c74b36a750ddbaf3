package toolhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// TurnRecord is one turn kept for history stitching (SPEC §8). The client
// keeps only what it saw; when a later request's history contains that
// assistant message (found by one of Keys), the proxy re-expands it into
// Messages before forwarding, so the model still knows what its tools
// returned.
type TurnRecord struct {
	// ID is the turn id (chatcmpl-…).
	ID string `json:"id"`
	// Keys are the lookup keys of the turn: "fp:<hex>" (a fingerprint of
	// the text the client received), "call:<call id>" (a call the client
	// saw, e.g. on a markdown card). Never a secret.
	Keys []string `json:"keys"`
	// Messages are the turn's full assistant side as the upstream must see
	// it again: the model's text with its tool markup or native calls, and
	// every result. Each is stored as compact JSON.
	Messages []json.RawMessage `json:"messages"`
	// CreatedAt is when the turn was saved; [Store.SaveTurn] sets it when
	// zero.
	CreatedAt time.Time `json:"created_at"`
}

// errEmptyTurnID and errEmptyTurnKey reject records that could not be
// found again.
var (
	errEmptyTurnID  = errors.New("empty turn id")
	errEmptyTurnKey = errors.New("empty lookup key")
)

// SaveTurn stores rec and one index entry per key in one transaction, all
// expiring together after storage.turn_retention. Saving an id again
// replaces the record; a key the new record no longer lists stops finding
// it. A record whose JSON is over 1 MiB in memory mode (64 MiB on disk), or
// an id or key over 4 KiB, fails with [ErrTooLarge].
func (s *Store) SaveTurn(ctx context.Context, rec TurnRecord) error {
	if rec.ID == "" {
		return fmt.Errorf("saving turn: %w", errEmptyTurnID)
	}
	if slices.Contains(rec.Keys, "") {
		return fmt.Errorf("saving turn %s: %w", rec.ID, errEmptyTurnKey)
	}
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = s.now()
	}
	val, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("saving turn %s: %w", rec.ID, err)
	}
	exp := s.expiresAt(s.turnRetention)
	id := []byte(rec.ID)
	err = s.update(ctx, func(txn *badger.Txn) error {
		if err := s.put(txn, storeKey(prefixTurn, rec.ID), val, exp); err != nil {
			return err
		}
		for _, k := range rec.Keys {
			if err := s.put(txn, storeKey(prefixTurnKey, k), id, exp); err != nil {
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
func (s *Store) FindTurn(ctx context.Context, key string) (TurnRecord, bool, error) {
	if key == "" || len(prefixTurnKey)+len(key) > maxStoreKey {
		return TurnRecord{}, false, nil
	}
	var rec TurnRecord
	found := false
	err := s.view(ctx, func(txn *badger.Txn) error {
		id, ok, err := getRaw(txn, storeKey(prefixTurnKey, key))
		if err != nil || !ok {
			return err
		}
		ok, err = getJSON(txn, storeKey(prefixTurn, string(id)), &rec)
		if err != nil || !ok {
			return err
		}
		// An index entry outlives a key dropped by a later save of the
		// same turn; only the record's own list counts.
		found = slices.Contains(rec.Keys, key)
		return nil
	})
	if err != nil {
		return TurnRecord{}, false, fmt.Errorf("finding turn by %s: %w", key, err)
	}
	if !found {
		return TurnRecord{}, false, nil
	}
	return rec, true, nil
}
