package storetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

// turnRecord is a turn with one round: an assistant message with a native
// call, the call's result and the answer. Messages are compact JSON.
func turnRecord(id string, keys ...string) store.TurnRecord {
	return store.TurnRecord{
		ID:   id,
		Keys: keys,
		Messages: []json.RawMessage{
			json.RawMessage(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]}`),
			json.RawMessage(`{"role":"tool","tool_call_id":"call_1","content":"{\"temp_c\":4}"}`),
			json.RawMessage(`{"role":"assistant","content":"It is 4 °C in Oslo."}`),
		},
		CreatedAt: now(),
	}
}

// wantTurn checks that key finds want, or nothing when want has no id.
func wantTurn(t *testing.T, s store.Store, key string, want store.TurnRecord) {
	t.Helper()
	got, ok, err := s.FindTurn(t.Context(), key)
	wantRead(t, fmt.Sprintf("FindTurn(%.40q)", key), got, ok, err, want, want.ID != "")
}

func testTurns(t *testing.T, open opener) {
	testTurnLookup(t, open)
	testTurnWrites(t, open)
}

// testTurnLookup checks which keys find a turn record, also once it is
// replaced, and that keys of any text stay apart.
func testTurnLookup(t *testing.T, open opener) {
	parallel(t, open, "FindByEveryKey", func(t *testing.T, s store.Store) {
		rec := turnRecord("chatcmpl-1", "fp:0a1b2c", "call:call_1", "call:call_2")
		other := turnRecord("chatcmpl-2", "fp:ffff")
		for _, r := range []store.TurnRecord{rec, other} {
			must(t, "SaveTurn", s.SaveTurn(t.Context(), r))
		}
		for _, k := range rec.Keys {
			wantTurn(t, s, k, rec)
		}
		wantTurn(t, s, "fp:ffff", other)
		// The turn id, a key never saved and an empty key find nothing.
		for _, k := range []string{"chatcmpl-1", "fp:02", "call:call_3", ""} {
			wantTurn(t, s, k, store.TurnRecord{})
		}
	})
	parallel(t, open, "Replace", func(t *testing.T, s store.Store) {
		must(t, "SaveTurn", s.SaveTurn(t.Context(), turnRecord("chatcmpl-1", "fp:old", "call:call_1")))
		rec := turnRecord("chatcmpl-1", "fp:new", "call:call_1")
		rec.Messages = rec.Messages[:2]
		must(t, "SaveTurn again", s.SaveTurn(t.Context(), rec))
		wantTurn(t, s, "fp:new", rec)
		wantTurn(t, s, "call:call_1", rec)
		wantTurn(t, s, "fp:old", store.TurnRecord{}) // dropped by the new record
	})
	parallel(t, open, "ScopedKeys", func(t *testing.T, s store.Store) {
		// History stitching prefixes every key with its key's and
		// conversation's scope (history.Scope): the same text and call id
		// in two scopes are two turns' keys, and neither is found by
		// the key without its scope.
		scopeA, scopeB := strings.Repeat("a", 64)+"/", strings.Repeat("b", 64)+"/"
		a := turnRecord("chatcmpl-a", scopeA+"fp:0d0e", scopeA+"call:call_1")
		b := turnRecord("chatcmpl-b", scopeB+"fp:0d0e", scopeB+"call:call_1")
		for _, r := range []store.TurnRecord{a, b} {
			must(t, "SaveTurn", s.SaveTurn(t.Context(), r))
		}
		for _, r := range []store.TurnRecord{a, b} {
			for _, k := range r.Keys {
				wantTurn(t, s, k, r)
			}
		}
		for _, k := range []string{"fp:0d0e", "call:call_1"} {
			wantTurn(t, s, k, store.TurnRecord{})
		}
	})
	parallel(t, open, "AnyText", func(t *testing.T, s store.Store) {
		// Turn ids come from upstreams and keys from clients: any text
		// works, and keys that share a prefix stay apart.
		a := turnRecord("chatcmpl/../a\x00b", "call:a", "fp:ü\x00/"+strings.Repeat("k", 5<<10))
		b := turnRecord("chatcmpl/../a", "call:a/b", "call:a\x00")
		for _, r := range []store.TurnRecord{a, b} {
			must(t, "SaveTurn", s.SaveTurn(t.Context(), r))
		}
		for _, k := range a.Keys {
			wantTurn(t, s, k, a)
		}
		for _, k := range b.Keys {
			wantTurn(t, s, k, b)
		}
	})
}

// testTurnWrites checks what saving a turn record fills in, refuses and
// expires, and that concurrent saves stay apart.
func testTurnWrites(t *testing.T, open opener) {
	parallel(t, open, "SetsCreatedAt", func(t *testing.T, s store.Store) {
		rec := turnRecord("chatcmpl-1", "fp:01")
		rec.CreatedAt = time.Time{}
		must(t, "SaveTurn", s.SaveTurn(t.Context(), rec))
		got, ok, err := s.FindTurn(t.Context(), "fp:01")
		if err != nil || !ok || !recent(got.CreatedAt) {
			t.Errorf("FindTurn = %v, %v, CreatedAt %v; want found, created now", ok, err, got.CreatedAt)
		}
	})
	parallel(t, open, "Rejects", func(t *testing.T, s store.Store) {
		for _, rec := range []store.TurnRecord{
			turnRecord("", "fp:01"),
			turnRecord("chatcmpl-1", "fp:01", ""),
		} {
			wantErr(t, fmt.Sprintf("SaveTurn(id %q, keys %q)", rec.ID, rec.Keys), s.SaveTurn(t.Context(), rec), store.ErrInvalidKey)
		}
		wantTurn(t, s, "fp:01", store.TurnRecord{})
	})
	parallel(t, open, "Expiry", func(t *testing.T, s store.Store) {
		old := turnRecord("chatcmpl-old", "fp:old", "call:old")
		old.CreatedAt = expiredAt()
		fresh := turnRecord("chatcmpl-new", "fp:new")
		for _, r := range []store.TurnRecord{old, fresh} {
			must(t, "SaveTurn", s.SaveTurn(t.Context(), r))
		}
		for _, k := range old.Keys {
			wantTurn(t, s, k, store.TurnRecord{})
		}
		wantTurn(t, s, "fp:new", fresh)
	})
	parallel(t, open, "Concurrent", func(t *testing.T, s store.Store) {
		const workers, turns = 4, 20
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := range turns {
					id := fmt.Sprintf("chatcmpl-%d-%d", w, i)
					// Every worker also writes the one shared key.
					if err := s.SaveTurn(t.Context(), turnRecord(id, "fp:"+id, "call:shared")); err != nil {
						t.Errorf("SaveTurn(%s): %v", id, err)
						return
					}
					got, ok, err := s.FindTurn(t.Context(), "fp:"+id)
					if err != nil || !ok || got.ID != id {
						t.Errorf("FindTurn(fp:%s) = %s, %v, %v", id, got.ID, ok, err)
						return
					}
				}
			})
		}
		wg.Wait()
		if _, ok, err := s.FindTurn(t.Context(), "call:shared"); err != nil || !ok {
			t.Errorf("FindTurn(call:shared) = %v, %v; want the last writer's turn", ok, err)
		}
	})
}

func testModes(t *testing.T, open opener) {
	parallel(t, open, "PerUpstreamAndModel", func(t *testing.T, s store.Store) {
		ctx := t.Context()
		if on, err := s.TextFallback(ctx, "local", "qwen3"); err != nil || on {
			t.Fatalf("TextFallback before Remember = %v, %v; want false", on, err)
		}
		must(t, "RememberTextFallback", s.RememberTextFallback(ctx, "local", "qwen3"))
		// Model names are any text a client sends.
		must(t, "RememberTextFallback", s.RememberTextFallback(ctx, "local", "org/model:7b\x00/é"))
		for _, tc := range []struct {
			upstream, model string
			want            bool
		}{
			{"local", "qwen3", true},
			{"local", "org/model:7b\x00/é", true},
			{"local", "qwen3:8b", false}, // per model
			{"local", "qwen", false},     // not a prefix match
			{"local", "", false},
			{"openai", "qwen3", false}, // per upstream
			{"local", "org/model:7b", false},
		} {
			on, err := s.TextFallback(ctx, tc.upstream, tc.model)
			if err != nil || on != tc.want {
				t.Errorf("TextFallback(%q, %q) = %v, %v; want %v", tc.upstream, tc.model, on, err, tc.want)
			}
		}
	})
	parallel(t, open, "InvalidUpstream", func(t *testing.T, s store.Store) {
		// An upstream is a config name; "local\x00qwen3" with model ""
		// must not reach the memory of "local" and "qwen3".
		must(t, "RememberTextFallback", s.RememberTextFallback(t.Context(), "local", "qwen3"))
		for _, up := range []string{"", "local\x00qwen3", "local/qwen3"} {
			_, err := s.TextFallback(t.Context(), up, "")
			wantErr(t, fmt.Sprintf("TextFallback(%q)", up), err, store.ErrInvalidKey)
			wantErr(t, fmt.Sprintf("RememberTextFallback(%q)", up), s.RememberTextFallback(t.Context(), up, ""), store.ErrInvalidKey)
		}
	})
}
