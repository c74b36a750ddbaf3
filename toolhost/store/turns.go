package store

import (
	"context"
	"encoding/json"
	"time"
)

// TurnRecord is one turn kept for history stitching (docs/operations.md). The
// client keeps only what it saw; when a later request's history contains that
// assistant message (found by one of Keys), the proxy re-expands it into
// Messages before forwarding, so the model still knows what its tools returned.
type TurnRecord struct {
	// ID is the turn id (chatcmpl-…). It comes from the upstream's
	// chunks, so it may be any non-empty text; backends hash it into keys.
	ID string `json:"id"`
	// Keys are the lookup keys of the turn: "<scope>/fp:<hex>" (a
	// fingerprint of the text the client received), "<scope>/call:<call
	// id>" (a call the client saw, e.g. on a markdown card), where the
	// scope is a digest of the client key's id and the conversation
	// (history.Scope). To the store they are opaque text. Never a secret.
	Keys []string `json:"keys"`
	// Messages are the turn's full assistant side as the upstream must see
	// it again: the model's text with its tool markup or native calls, and
	// every result. Each is stored as compact JSON.
	Messages []json.RawMessage `json:"messages"`
	// CreatedAt is when the turn was saved; SaveTurn sets it when zero.
	// The record expires storage.turn_retention after it.
	CreatedAt time.Time `json:"created_at"`
}

// TurnStore keeps turn records for history stitching.
type TurnStore interface {
	// SaveTurn stores rec under its id and each of its keys, all expiring
	// together storage.turn_retention after rec.CreatedAt. Saving an id
	// again replaces the record; a key the new record no longer lists
	// stops finding it.
	SaveTurn(ctx context.Context, rec TurnRecord) error
	// FindTurn returns the turn listing key among its Keys.
	FindTurn(ctx context.Context, key string) (TurnRecord, bool, error)
}
