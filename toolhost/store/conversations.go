package store

import (
	"context"
	"log/slog"
	"time"
)

// conversationStore is what [Conversations] wraps: the turn and response
// records of a [Store].
type conversationStore interface {
	TurnStore
	ResponseStore
}

// Conversations are the turn records (history stitching) and stored
// responses of a store, whose writes outlast a storage failure: a turn's
// record is written once its calls ran and its answer is out, and a
// database gone at that moment would lose it — the next request of the
// conversation then finds nothing to stitch, and the model forgets what
// its tools did and may call them again. A write that fails for the
// storage's sake waits in a [Backlog] and is retried in the background
// until storage takes it or the record would have expired
// (storage.turn_retention). Reads go to the store as they are.
type Conversations struct {
	s         conversationStore
	retention time.Duration
	backlog   *Backlog
}

// NewConversations wraps s, whose records expire retention after they
// are created, logging to log. Close it before s.
func NewConversations(s conversationStore, retention time.Duration, log *slog.Logger) *Conversations {
	return &Conversations{s: s, retention: retention, backlog: NewBacklog(log, nil)}
}

// SaveTurn saves rec, or keeps it for the retries when storage fails it;
// it reports only errors of rec itself. rec.CreatedAt is set when zero,
// so that a late write expires when the first would have.
func (c *Conversations) SaveTurn(ctx context.Context, rec TurnRecord) error {
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = time.Now()
	}
	size := 512
	for _, m := range rec.Messages {
		size += len(m)
	}
	for _, k := range rec.Keys {
		size += len(k)
	}
	return c.write(ctx, "turn:"+rec.ID, "turn record", rec.CreatedAt, size, func(ctx context.Context) error {
		return c.s.SaveTurn(ctx, rec)
	}, slog.String("turn_id", rec.ID))
}

// SaveResponse saves rec as SaveTurn saves a turn.
func (c *Conversations) SaveResponse(ctx context.Context, rec ResponseRecord) error {
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = time.Now()
	}
	size := 512 + len(rec.Response)
	for _, m := range rec.Messages {
		size += len(m)
	}
	for id, ms := range rec.Items {
		size += len(id)
		for _, m := range ms {
			size += len(m)
		}
	}
	return c.write(ctx, "response:"+rec.KeyID+":"+rec.ID, "stored response", rec.CreatedAt, size, func(ctx context.Context) error {
		return c.s.SaveResponse(ctx, rec)
	}, slog.String("response_id", rec.ID))
}

// write writes through the backlog a record created at created.
func (c *Conversations) write(ctx context.Context, key, what string, created time.Time, size int, write func(context.Context) error, attrs ...slog.Attr) error {
	return c.backlog.Write(ctx, key, what, created.Add(c.retention), size, write, attrs...)
}

// FindTurn, Response, ResponseByItem and DeleteResponse are the store's.
func (c *Conversations) FindTurn(ctx context.Context, key string) (TurnRecord, bool, error) {
	return c.s.FindTurn(ctx, key)
}

func (c *Conversations) Response(ctx context.Context, keyID, id string) (ResponseRecord, bool, error) {
	return c.s.Response(ctx, keyID, id)
}

func (c *Conversations) ResponseByItem(ctx context.Context, keyID, itemID string) (ResponseRecord, bool, error) {
	return c.s.ResponseByItem(ctx, keyID, itemID)
}

func (c *Conversations) DeleteResponse(ctx context.Context, keyID, id string) (bool, error) {
	return c.s.DeleteResponse(ctx, keyID, id)
}

// Close stops the retries, tries each waiting record once more, and logs
// those lost (see [Backlog.Close]). It does not close the store.
func (c *Conversations) Close() { c.backlog.Close() }
