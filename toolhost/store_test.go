package toolhost_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// openStore opens a store for cfg and closes it when the test ends, so no
// badger goroutine outlives the test (goleak checks in TestMain).
func openStore(t *testing.T, cfg config.Storage, opts toolhost.StoreOptions) *toolhost.Store {
	t.Helper()
	s, err := toolhost.OpenStore(cfg, opts)
	if err != nil {
		t.Fatalf("OpenStore: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// memStore is an in-memory store with a one-hour turn retention.
func memStore(t *testing.T, opts toolhost.StoreOptions) *toolhost.Store {
	t.Helper()
	return openStore(t, config.Storage{InMemory: true, TurnRetention: time.Hour}, opts)
}

func TestStoreReadyAndClose(t *testing.T) {
	t.Parallel()
	s, err := toolhost.OpenStore(config.Storage{InMemory: true}, toolhost.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(); err != nil {
		t.Errorf("Ready while open = %v, want nil", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Ready(); !errors.Is(err, toolhost.ErrStoreClosed) {
		t.Errorf("Ready after Close = %v, want ErrStoreClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}

	ctx := t.Context()
	if err := s.SaveTurn(ctx, toolhost.TurnRecord{ID: "chatcmpl-1"}); !errors.Is(err, toolhost.ErrStoreClosed) {
		t.Errorf("SaveTurn after Close = %v, want ErrStoreClosed", err)
	}
	if _, _, err := s.FindTurn(ctx, "fp:1"); !errors.Is(err, toolhost.ErrStoreClosed) {
		t.Errorf("FindTurn after Close = %v, want ErrStoreClosed", err)
	}
	if _, err := s.TextFallback(ctx, "local", "qwen3"); !errors.Is(err, toolhost.ErrStoreClosed) {
		t.Errorf("TextFallback after Close = %v, want ErrStoreClosed", err)
	}
	if err := s.RememberTextFallback(ctx, "local", "qwen3"); !errors.Is(err, toolhost.ErrStoreClosed) {
		t.Errorf("RememberTextFallback after Close = %v, want ErrStoreClosed", err)
	}
}

func TestStoreRestartKeepsRecords(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	cfg := config.Storage{Path: filepath.Join(t.TempDir(), "data"), TurnRetention: time.Hour}
	rec := turnRecord("chatcmpl-restart", "fp:aa", "call:call_1")

	s, err := toolhost.OpenStore(cfg, toolhost.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveTurn(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := s.RememberTextFallback(ctx, "local", "qwen3"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s = openStore(t, cfg, toolhost.StoreOptions{})
	for _, key := range rec.Keys {
		got, ok, err := s.FindTurn(ctx, key)
		if err != nil || !ok {
			t.Fatalf("FindTurn(%q) after restart = %v, %v", key, ok, err)
		}
		checkTurn(t, got, rec)
	}
	if on, err := s.TextFallback(ctx, "local", "qwen3"); err != nil || !on {
		t.Errorf("TextFallback after restart = %v, %v; want true", on, err)
	}
}

func TestStoreOneProcessPerDirectory(t *testing.T) {
	t.Parallel()
	cfg := config.Storage{Path: t.TempDir()}
	openStore(t, cfg, toolhost.StoreOptions{})
	s, err := toolhost.OpenStore(cfg, toolhost.StoreOptions{})
	if err == nil {
		s.Close()
		t.Fatal("second OpenStore on an open directory succeeded")
	}
	if !strings.HasPrefix(err.Error(), "opening store ") {
		t.Errorf("error %q does not start with the operation", err)
	}
}

func TestStoreEmptyPath(t *testing.T) {
	t.Parallel()
	if s, err := toolhost.OpenStore(config.Storage{}, toolhost.StoreOptions{}); err == nil {
		s.Close()
		t.Fatal("OpenStore with an empty path succeeded")
	}
}

func TestStoreInMemoryWritesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "data")
	s, err := toolhost.OpenStore(config.Storage{Path: path, InMemory: true}, toolhost.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := s.SaveTurn(ctx, turnRecord("chatcmpl-mem", "fp:01")); err != nil {
		t.Fatal(err)
	}
	if err := s.RememberTextFallback(ctx, "local", "qwen3"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("in-memory store wrote %d entries under its directory, want none", len(entries))
	}
}

// TestStoreGCLoopStops runs value-log GC on a short ticker while writing,
// and relies on goleak (TestMain) to see that Close stopped it.
func TestStoreGCLoopStops(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openStore(t, config.Storage{Path: t.TempDir(), TurnRetention: time.Hour},
		toolhost.StoreOptions{GCInterval: time.Millisecond})
	big := strings.Repeat("x", 100<<10) // above the value-log threshold
	for i := range 20 {
		rec := turnRecord("chatcmpl-gc", "fp:gc")
		rec.Messages = append(rec.Messages, []byte(`"`+big[:len(big)-i]+`"`))
		if err := s.SaveTurn(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, err := s.FindTurn(ctx, "fp:gc"); err != nil || !ok {
		t.Fatalf("FindTurn = %v, %v", ok, err)
	}
}

// TestStoreLogsWarnAndAbove checks that badger's info lines (several on
// every open and close) do not reach the logger.
func TestStoreLogsWarnAndAbove(t *testing.T) {
	t.Parallel()
	h := &levelCounter{}
	s, err := toolhost.OpenStore(config.Storage{Path: t.TempDir()}, toolhost.StoreOptions{Logger: slog.New(h)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
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
