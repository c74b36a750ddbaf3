package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// flakyStore fails writes of turns and responses while down, as a
// database that went away does; with tooLarge it refuses them instead.
type flakyStore struct {
	store.Store
	down, tooLarge atomic.Bool
}

func (f *flakyStore) fail() error {
	switch {
	case f.tooLarge.Load():
		return fmt.Errorf("saving: %w", store.ErrTooLarge)
	case f.down.Load():
		return fmt.Errorf("saving: %w: connection refused", store.ErrUnavailable)
	}
	return nil
}

func (f *flakyStore) SaveTurn(ctx context.Context, rec store.TurnRecord) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.Store.SaveTurn(ctx, rec)
}

func (f *flakyStore) SaveResponse(ctx context.Context, rec store.ResponseRecord) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.Store.SaveResponse(ctx, rec)
}

type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newConversations(t *testing.T) (*store.Conversations, *flakyStore, *lockedLog) {
	t.Helper()
	db, err := badger.Open(config.Storage{InMemory: true}, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &flakyStore{Store: store.Checked(db)}
	log := &lockedLog{}
	c := store.NewConversations(f, time.Hour, slog.New(slog.NewTextHandler(log, nil)))
	t.Cleanup(c.Close)
	return c, f, log
}

var msg = json.RawMessage(`{"role":"assistant","content":"Done."}`)

// conversationRecords are the two kinds of record, each saved and found.
var conversationRecords = []struct {
	name  string
	save  func(c *store.Conversations) error
	found func(s store.Store) bool
}{
	{"turn", func(c *store.Conversations) error {
		return c.SaveTurn(context.Background(), store.TurnRecord{ID: "chatcmpl-1", Keys: []string{"fp:01"}, Messages: []json.RawMessage{msg}})
	}, func(s store.Store) bool {
		_, ok, err := s.FindTurn(context.Background(), "fp:01")
		return err == nil && ok
	}},
	{"response", func(c *store.Conversations) error {
		return c.SaveResponse(context.Background(), store.ResponseRecord{ID: "resp_1", KeyID: "key_a", Response: json.RawMessage(`{}`), Messages: []json.RawMessage{msg}})
	}, func(s store.Store) bool {
		_, ok, err := s.Response(context.Background(), "key_a", "resp_1")
		return err == nil && ok
	}},
}

// TestConversationsOutliveOutage: a turn or response record whose write
// fails for the storage's sake is written once storage is back; one
// refused for what it is comes back as the error.
func TestConversationsOutliveOutage(t *testing.T) {
	for _, tc := range conversationRecords {
		t.Run(tc.name, func(t *testing.T) {
			c, f, _ := newConversations(t)
			f.down.Store(true)
			if err := tc.save(c); err != nil {
				t.Fatalf("save during the outage = %v, want nil (kept for later)", err)
			}
			if tc.found(f.Store) {
				t.Fatal("found during the outage")
			}
			f.down.Store(false)
			deadline := time.Now().Add(20 * time.Second)
			for !tc.found(f.Store) {
				if time.Now().After(deadline) {
					t.Fatal("not written within 20s of storage coming back")
				}
				time.Sleep(20 * time.Millisecond)
			}

			f.tooLarge.Store(true)
			if err := tc.save(c); !errors.Is(err, store.ErrTooLarge) {
				t.Errorf("save of a record refused = %v, want ErrTooLarge", err)
			}
		})
	}
}

// TestConversationsAtShutdown: records still waiting when Close is
// called are tried once more and logged lost; no goroutine is left
// (TestMain checks).
func TestConversationsAtShutdown(t *testing.T) {
	for _, tc := range conversationRecords {
		t.Run(tc.name, func(t *testing.T) {
			c, f, log := newConversations(t)
			f.down.Store(true)
			tc.save(c)
			c.Close()
			if tc.found(f.Store) || !strings.Contains(log.String(), "write given up") {
				t.Errorf("after Close: found %v; log:\n%s", tc.found(f.Store), log)
			}
		})
	}
}
