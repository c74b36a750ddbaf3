package badger_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
	"github.com/toolstream/toolstream/toolhost/store/storetest"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runChild())
	}
	goleak.VerifyTestMain(m)
}

// open opens a DB for cfg and closes it when the test ends, so no badger
// goroutine outlives the test (goleak checks in TestMain).
// open is openDB behind store.Checked, as every caller uses a backend.
func open(t *testing.T, cfg config.Storage, opts badger.Options) store.Store {
	t.Helper()
	return store.Checked(openDB(t, cfg, opts))
}

// openDB opens a backend and closes it when the test ends.
func openDB(t *testing.T, cfg config.Storage, opts badger.Options) *badger.DB {
	t.Helper()
	db, err := badger.Open(cfg, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

// retained is cfg with the suite's retentions.
func retained(cfg config.Storage) config.Storage {
	cfg.AuditRetention, cfg.TurnRetention = storetest.Retention, storetest.Retention
	return cfg
}

func TestConformance(t *testing.T) {
	t.Run("InMemory", func(t *testing.T) {
		t.Parallel()
		storetest.Run(t, func(t *testing.T) store.Backend {
			return openDB(t, retained(config.Storage{InMemory: true}), badger.Options{})
		})
	})
	t.Run("OnDisk", func(t *testing.T) {
		t.Parallel()
		storetest.Run(t, func(t *testing.T) store.Backend {
			return openDB(t, retained(config.Storage{Path: t.TempDir()}), badger.Options{})
		})
	})
}

// TestReopen: what one process wrote, the next one on the same directory
// reads.
func TestReopen(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	cfg := retained(config.Storage{Path: filepath.Join(t.TempDir(), "data")})
	now := time.Now().UTC()
	turn := store.TurnRecord{ID: "chatcmpl-1", Keys: []string{"fp:aa", "call:call_1"}, Messages: []json.RawMessage{json.RawMessage(`{"role":"assistant","content":"hi"}`)}, CreatedAt: now}
	call := store.CallRecord{ID: "tcr_1", Tool: "t", Arguments: json.RawMessage(`{}`), StartedAt: now, Instance: "inst_a"}
	act := store.Action{ID: "act_1", Tool: "t", Arguments: json.RawMessage(`{}`), CreatedAt: now, KeyID: "key_a"}
	tool := store.RuntimeTool{Name: "t", Spec: json.RawMessage(`{"name":"t"}`), CreatedAt: now, UpdatedAt: now}
	later := now.Add(time.Hour)
	keys := []store.RuntimeKey{
		{Name: "k_all", Hash: strings.Repeat("ab", 32), CreatedAt: now, UpdatedAt: now},
		{Name: "k_none", Hash: strings.Repeat("cd", 32), Models: []string{"gpt-*"}, Tools: []string{},
			Limits: store.KeyLimits{RequestsPerMinute: 5}, ExpiresAt: &later, CreatedAt: now, UpdatedAt: now},
	}

	raw, err := badger.Open(cfg, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := store.Checked(raw)
	for _, err := range []error{
		db.SaveTurn(ctx, turn),
		db.RememberTextFallback(ctx, "local", "qwen3"),
		db.StartCall(ctx, call, &store.AttemptRef{Attempt: "att_1", TTL: time.Hour}),
		db.CreateAction(ctx, act),
		db.PutTool(ctx, tool),
		db.CreateKey(ctx, keys[0]),
		db.CreateKey(ctx, keys[1]),
		db.Close(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}

	db = open(t, cfg, badger.Options{})
	if got, ok, err := db.FindTurn(ctx, "call:call_1"); err != nil || !ok || got.ID != turn.ID {
		t.Errorf("FindTurn after reopening = %v, %v, %v", got.ID, ok, err)
	}
	if on, err := db.TextFallback(ctx, "local", "qwen3"); err != nil || !on {
		t.Errorf("TextFallback after reopening = %v, %v", on, err)
	}
	if got, ok, err := db.Call(ctx, "tcr_1"); err != nil || !ok || got.Status != store.StatusStarted {
		t.Errorf("Call after reopening = %+v, %v, %v", got, ok, err)
	}
	if r, err := db.Replays(ctx, "att_1"); err != nil || len(r) != 1 {
		t.Errorf("Replays after reopening = %v, %v", r, err)
	}
	if got, ok, err := db.Action(ctx, "act_1"); err != nil || !ok || got.Status != store.ActionPending {
		t.Errorf("Action after reopening = %+v, %v, %v", got, ok, err)
	}
	if got, err := db.Tools(ctx); err != nil || len(got) != 1 {
		t.Errorf("Tools after reopening = %v, %v", got, err)
	}
	got, err := db.Keys(ctx)
	if err != nil {
		t.Fatalf("Keys after reopening: %v", err)
	}
	// nil and empty scopes stay apart: all tools and none.
	if diff := cmp.Diff(keys, got); diff != "" {
		t.Errorf("Keys after reopening (-want +got):\n%s", diff)
	}
	rec, err := db.Recover(ctx, "inst_b")
	if err != nil || rec != (store.Recovered{Calls: 1, Actions: 1}) {
		t.Errorf("Recover after reopening = %+v, %v; want the started call and the pending action", rec, err)
	}
}

func TestLockedDirectory(t *testing.T) {
	t.Parallel()
	cfg := config.Storage{Path: t.TempDir()}
	open(t, cfg, badger.Options{})
	db, err := badger.Open(cfg, badger.Options{})
	if err == nil {
		db.Close()
		t.Fatal("a second Open of an open directory succeeded")
	}
	if !errors.Is(err, badger.ErrLocked) {
		t.Errorf("error %v does not wrap ErrLocked", err)
	}
	want := "storage.path " + cfg.Path + " is in use by another toolstream process; stop it or set storage.path to another directory"
	if err.Error() != want {
		t.Errorf("error = %q\nwant    %q", err, want)
	}
}

func TestEmptyPath(t *testing.T) {
	t.Parallel()
	if db, err := badger.Open(config.Storage{}, badger.Options{}); err == nil {
		db.Close()
		t.Fatal("Open with an empty path succeeded")
	}
}

func TestInMemoryWritesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := open(t, config.Storage{Path: filepath.Join(dir, "data"), InMemory: true}, badger.Options{})
	ctx := t.Context()
	if err := db.SaveTurn(ctx, store.TurnRecord{ID: "chatcmpl-1", Keys: []string{"fp:01"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.StartCall(ctx, store.CallRecord{ID: "tcr_1", Tool: "t"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("in-memory store wrote %d entries under its directory (%v), want none", len(entries), err)
	}
}

// TestTooLarge checks the size limit, and that the error does not carry
// the record's content (badger's own error would hex-dump it).
func TestTooLarge(t *testing.T) {
	t.Parallel()
	db := open(t, config.Storage{InMemory: true}, badger.Options{})
	private := strings.Repeat("the user's private text ", 50<<10) // over 1 MiB
	rec := store.TurnRecord{ID: "chatcmpl-big", Keys: []string{"fp:big"}, Messages: []json.RawMessage{json.RawMessage(strconv.Quote(private))}}
	err := db.SaveTurn(t.Context(), rec)
	if !errors.Is(err, store.ErrTooLarge) {
		t.Fatalf("SaveTurn = %v, want ErrTooLarge", err)
	}
	if strings.Contains(err.Error(), "private") || len(err.Error()) > 200 {
		t.Errorf("error carries content: %.300s", err)
	}
	if _, ok, err := db.FindTurn(t.Context(), "fp:big"); err != nil || ok {
		t.Errorf("FindTurn = %v, %v; want not found", ok, err)
	}
}

// TestTextFallbackExpires needs a clock: the suite cannot set the time a
// fallback is remembered at.
func TestTextFallbackExpires(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ago  time.Duration
		want bool
	}{
		{"after 6 days", 6 * 24 * time.Hour, true},
		{"after 8 days", 8 * 24 * time.Hour, false}, // native tools get a new chance
		{"before 1970", time.Since(time.Time{}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			past := func() time.Time { return time.Now().Add(-tc.ago) }
			db := open(t, config.Storage{InMemory: true}, badger.Options{Now: past})
			if err := db.RememberTextFallback(t.Context(), "local", "qwen3"); err != nil {
				t.Fatal(err)
			}
			if on, err := db.TextFallback(t.Context(), "local", "qwen3"); err != nil || on != tc.want {
				t.Errorf("TextFallback = %v, %v; want %v", on, err, tc.want)
			}
		})
	}
}

// TestKeysFollowTheClock: a runtime key ends at its ExpiresAt by the
// store's clock even while badger, which expires by the real clock and in
// whole seconds, still holds it.
func TestKeysFollowTheClock(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	ahead := func() time.Time { return time.Now().Add(time.Hour) }
	db := open(t, config.Storage{InMemory: true}, badger.Options{Now: ahead})
	soon := time.Now().Add(time.Minute) // past by the store's clock
	k := store.RuntimeKey{Name: "k", Hash: strings.Repeat("ab", 32), ExpiresAt: &soon}
	if err := db.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Keys(ctx); err != nil || len(got) != 0 {
		t.Errorf("Keys = %+v, %v; want none", got, err)
	}
	if _, err := db.UpdateKey(ctx, k); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateKey = %v, want ErrNotFound", err)
	}
	if existed, err := db.DeleteKey(ctx, "k"); err != nil || existed {
		t.Errorf("DeleteKey = %v, %v; want false", existed, err)
	}
	// Its name is free: the new key lives, having no expiry.
	k.ExpiresAt = nil
	if err := db.CreateKey(ctx, k); err != nil {
		t.Fatalf("CreateKey over the ended key: %v", err)
	}
	if got, err := db.Keys(ctx); err != nil || len(got) != 1 {
		t.Errorf("Keys = %+v, %v; want the new key", got, err)
	}
}

// TestGCLoopStops runs value-log GC on a short ticker while writing, and
// relies on goleak (TestMain) to see that Close stopped it.
func TestGCLoopStops(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := open(t, retained(config.Storage{Path: t.TempDir()}), badger.Options{GCInterval: time.Millisecond})
	big := strings.Repeat("x", 100<<10) // above the value-log threshold
	for i := range 20 {
		rec := store.TurnRecord{ID: "chatcmpl-gc", Keys: []string{"fp:gc"}, Messages: []json.RawMessage{json.RawMessage(`"` + big[:len(big)-i] + `"`)}}
		if err := db.SaveTurn(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, err := db.FindTurn(ctx, "fp:gc"); err != nil || !ok {
		t.Fatalf("FindTurn = %v, %v", ok, err)
	}
}

// TestLogsWarnAndAbove checks that badger's info lines (several on every
// open and close) do not reach the logger.
func TestLogsWarnAndAbove(t *testing.T) {
	t.Parallel()
	h := &levelCounter{}
	db, err := badger.Open(config.Storage{Path: t.TempDir()}, badger.Options{Logger: slog.New(h)})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.below != 0 {
		t.Errorf("%d records below warn reached the logger", h.below)
	}
}

// levelCounter is a slog handler that counts records below warn.
type levelCounter struct {
	mu    sync.Mutex
	below int
}

func (h *levelCounter) Enabled(context.Context, slog.Level) bool { return true }
func (h *levelCounter) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *levelCounter) WithGroup(string) slog.Handler            { return h }
func (h *levelCounter) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.Level < slog.LevelWarn {
		h.below++
	}
	return nil
}
