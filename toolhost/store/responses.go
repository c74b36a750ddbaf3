package store

import (
	"context"
	"encoding/json"
	"time"
)

// ResponseRecord is an answer of the Responses API kept for
// previous_response_id and GET /v1/responses/{id} (docs/http-api.md). It
// holds the conversation as chat messages, server calls and results
// included, so a request that continues it needs no history stitching.
type ResponseRecord struct {
	// ID is the response id ("resp_…").
	ID string `json:"id"`
	// KeyID is the client key that created it ([KeyID]); only that key
	// finds it. Empty when the proxy runs without keys.
	KeyID string `json:"key_id"`
	// Response is the response object as GET /v1/responses/{id} returns
	// it (JSON).
	Response json.RawMessage `json:"response"`
	// Messages are the conversation up to and including this response,
	// as the chat messages an upstream reads (compact JSON): the input's,
	// then the model's rounds with their tool calls and results.
	Messages []json.RawMessage `json:"messages"`
	// Output counts the last of Messages that are this response's own
	// rounds, as the upstream read them: a client that sends the whole
	// output back as input gets them in its place, byte for byte.
	Output int `json:"output,omitempty"`
	// Items are the chat messages that stand for each output item, by
	// item id: a client that sends an item back as input (an mcp_call) or
	// names it (an item_reference) gets them in its place. Each id also
	// finds the record ([ResponseStore.ResponseByItem]).
	Items map[string][]json.RawMessage `json:"items,omitempty"`
	// CreatedAt is when the response was saved; SaveResponse sets it when
	// zero. The record expires storage.turn_retention after it.
	CreatedAt time.Time `json:"created_at"`
}

// ResponseStore keeps the Responses API's stored answers.
type ResponseStore interface {
	// SaveResponse stores rec under its key id and id, and under each of
	// its Items' ids, all expiring together storage.turn_retention after
	// rec.CreatedAt. Saving an id again replaces the record. Its JSON
	// fields are kept as they are, and read back the same bytes.
	SaveResponse(ctx context.Context, rec ResponseRecord) error
	// Response returns the response id that keyID saved; false when there
	// is none, it expired, or another key saved it.
	Response(ctx context.Context, keyID, id string) (ResponseRecord, bool, error)
	// ResponseByItem returns keyID's response whose Items hold itemID.
	ResponseByItem(ctx context.Context, keyID, itemID string) (ResponseRecord, bool, error)
	// DeleteResponse removes keyID's response id and reports whether it
	// existed; its items find nothing after it.
	DeleteResponse(ctx context.Context, keyID, id string) (bool, error)
}
