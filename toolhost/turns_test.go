package toolhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// turnRecord is a turn with one round: an assistant message with a native
// call, and the call's result. Messages are compact JSON, as stored.
func turnRecord(id string, keys ...string) toolhost.TurnRecord {
	return toolhost.TurnRecord{
		ID:   id,
		Keys: keys,
		Messages: []json.RawMessage{
			json.RawMessage(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]}`),
			json.RawMessage(`{"role":"tool","tool_call_id":"call_1","content":"{\"temp_c\":4}"}`),
			json.RawMessage(`{"role":"assistant","content":"It is 4 °C in Oslo."}`),
		},
		CreatedAt: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
	}
}

func checkTurn(t *testing.T, got, want toolhost.TurnRecord) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("turn record mismatch (-want +got):\n%s", diff)
	}
}

func TestSaveTurnFindByEveryKey(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := memStore(t, toolhost.StoreOptions{})
	rec := turnRecord("chatcmpl-1", "fp:0a1b2c", "call:call_1", "call:call_2")
	other := turnRecord("chatcmpl-2", "fp:ffff")
	for _, r := range []toolhost.TurnRecord{rec, other} {
		if err := s.SaveTurn(ctx, r); err != nil {
			t.Fatalf("SaveTurn(%s): %v", r.ID, err)
		}
	}
	for _, key := range rec.Keys {
		got, ok, err := s.FindTurn(ctx, key)
		if err != nil || !ok {
			t.Fatalf("FindTurn(%q) = %v, %v; want found", key, ok, err)
		}
		checkTurn(t, got, rec)
	}
	got, ok, err := s.FindTurn(ctx, "fp:ffff")
	if err != nil || !ok {
		t.Fatalf("FindTurn(fp:ffff) = %v, %v; want found", ok, err)
	}
	checkTurn(t, got, other)
}

func TestFindTurnUnknown(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := memStore(t, toolhost.StoreOptions{})
	if err := s.SaveTurn(ctx, turnRecord("chatcmpl-1", "fp:01")); err != nil {
		t.Fatal(err)
	}
	// The turn id itself, a key of another type and an empty key are not
	// lookup keys.
	for _, key := range []string{"fp:02", "chatcmpl-1", "call:call_1", ""} {
		got, ok, err := s.FindTurn(ctx, key)
		if err != nil || ok {
			t.Errorf("FindTurn(%q) = %+v, %v, %v; want not found", key, got, ok, err)
		}
	}
}

func TestSaveTurnSetsCreatedAt(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Now() // fixed, and recent enough not to expire
	s := memStore(t, toolhost.StoreOptions{Now: func() time.Time { return now }})
	rec := turnRecord("chatcmpl-1", "fp:01")
	rec.CreatedAt = time.Time{}
	if err := s.SaveTurn(ctx, rec); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.FindTurn(ctx, "fp:01")
	if err != nil || !ok {
		t.Fatalf("FindTurn = %v, %v", ok, err)
	}
	if !got.CreatedAt.Equal(now) {
		t.Errorf("CreatedAt = %v, want %v", got.CreatedAt, now)
	}
}

func TestSaveTurnReplaces(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := memStore(t, toolhost.StoreOptions{})
	if err := s.SaveTurn(ctx, turnRecord("chatcmpl-1", "fp:old", "call:call_1")); err != nil {
		t.Fatal(err)
	}
	rec := turnRecord("chatcmpl-1", "fp:new", "call:call_1")
	rec.Messages = rec.Messages[:2]
	if err := s.SaveTurn(ctx, rec); err != nil {
		t.Fatal(err)
	}
	for _, key := range rec.Keys {
		got, ok, err := s.FindTurn(ctx, key)
		if err != nil || !ok {
			t.Fatalf("FindTurn(%q) = %v, %v; want found", key, ok, err)
		}
		checkTurn(t, got, rec)
	}
	// The dropped key's index entry is still there; it must not find the
	// new record.
	if _, ok, err := s.FindTurn(ctx, "fp:old"); err != nil || ok {
		t.Errorf("FindTurn(fp:old) = %v, %v; want not found", ok, err)
	}
}

func TestSaveTurnRejects(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := memStore(t, toolhost.StoreOptions{})
	for _, rec := range []toolhost.TurnRecord{
		turnRecord("", "fp:01"),
		turnRecord("chatcmpl-1", "fp:01", ""),
		{ID: "chatcmpl-2", Keys: []string{"fp:02"}, Messages: []json.RawMessage{json.RawMessage(`{`)}},
	} {
		if err := s.SaveTurn(ctx, rec); err == nil {
			t.Errorf("SaveTurn(%+v) succeeded, want an error", rec)
		}
	}
	if _, ok, _ := s.FindTurn(ctx, "fp:01"); ok {
		t.Error("a rejected record was saved")
	}
}

func TestTurnContextCanceled(t *testing.T) {
	t.Parallel()
	s := memStore(t, toolhost.StoreOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.SaveTurn(ctx, turnRecord("chatcmpl-1", "fp:01")); !errors.Is(err, context.Canceled) {
		t.Errorf("SaveTurn = %v, want context.Canceled", err)
	}
	if _, _, err := s.FindTurn(ctx, "fp:01"); !errors.Is(err, context.Canceled) {
		t.Errorf("FindTurn = %v, want context.Canceled", err)
	}
}

// TestTurnExpiry writes with a clock set back further than the retention:
// badger checks expiry against the real clock, so the entries are already
// expired when written.
func TestTurnExpiry(t *testing.T) {
	t.Parallel()
	const retention = time.Hour
	for _, tc := range []struct {
		name string
		now  func() time.Time
		want bool
	}{
		{"now", time.Now, true},
		{"past", func() time.Time { return time.Now().Add(-2 * retention) }, false},
		// Before 1970: must not wrap around into "never expires".
		{"zero time", func() time.Time { return time.Time{} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			s := openStore(t, config.Storage{InMemory: true, TurnRetention: retention},
				toolhost.StoreOptions{Now: tc.now})
			rec := turnRecord("chatcmpl-1", "fp:01", "call:call_1")
			if err := s.SaveTurn(ctx, rec); err != nil {
				t.Fatal(err)
			}
			for _, key := range rec.Keys {
				_, ok, err := s.FindTurn(ctx, key)
				if err != nil || ok != tc.want {
					t.Errorf("FindTurn(%q) = %v, %v; want %v", key, ok, err, tc.want)
				}
			}
		})
	}
}

func TestTurnConcurrent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := memStore(t, toolhost.StoreOptions{})
	const workers, turns = 8, 40
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range turns {
				id := fmt.Sprintf("chatcmpl-%d-%d", w, i)
				rec := turnRecord(id, "fp:"+id, "call:shared") // all fight over one key
				if err := s.SaveTurn(ctx, rec); err != nil {
					t.Errorf("SaveTurn(%s): %v", id, err)
					return
				}
				got, ok, err := s.FindTurn(ctx, "fp:"+id)
				if err != nil || !ok || got.ID != id {
					t.Errorf("FindTurn(fp:%s) = %s, %v, %v", id, got.ID, ok, err)
					return
				}
				if _, ok, err := s.FindTurn(ctx, "call:shared"); err != nil || !ok {
					t.Errorf("FindTurn(call:shared) = %v, %v", ok, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestSaveTurnTooLarge checks the size limits, and that the error does not
// carry the record's content (badger's own error would hex-dump it).
func TestSaveTurnTooLarge(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := memStore(t, toolhost.StoreOptions{})
	secretish := strings.Repeat("the user's private text ", 50<<10) // over 1 MiB
	big := turnRecord("chatcmpl-big", "fp:big")
	big.Messages = append(big.Messages, json.RawMessage(strconv.Quote(secretish)))
	longKey := turnRecord("chatcmpl-key", "call:"+strings.Repeat("k", 5<<10))
	for _, rec := range []toolhost.TurnRecord{big, longKey} {
		err := s.SaveTurn(ctx, rec)
		if !errors.Is(err, toolhost.ErrTooLarge) {
			t.Errorf("SaveTurn(%s) = %v, want ErrTooLarge", rec.ID, err)
			continue
		}
		if strings.Contains(err.Error(), "private") || len(err.Error()) > 200 {
			t.Errorf("SaveTurn(%s) error carries content: %.300s", rec.ID, err)
		}
	}
	if _, ok, err := s.FindTurn(ctx, longKey.Keys[0]); err != nil || ok {
		t.Errorf("FindTurn(long key) = %v, %v; want not found", ok, err)
	}
}
