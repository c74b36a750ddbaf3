package postgres

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

// TestSaveTurnStatement: the one statement that saves a turn takes a key
// listed twice, and turns saved at once that share keys in any order
// neither fail nor deadlock; each key ends with one of them.
func TestSaveTurnStatement(t *testing.T) {
	t.Parallel()
	s := store.Checked(openDB(t, pgtest.Start(t), Options{}))
	ctx := t.Context()
	msgs := []json.RawMessage{json.RawMessage(`{"role":"assistant","content":"hi"}`)}
	twice := store.TurnRecord{ID: "chatcmpl-0", Keys: []string{"fp:a", "call:1", "fp:a"}, Messages: msgs}
	if err := s.SaveTurn(ctx, twice); err != nil {
		t.Fatalf("SaveTurn with a key listed twice: %v", err)
	}
	if _, ok, err := s.FindTurn(ctx, "fp:a"); !ok || err != nil {
		t.Errorf("FindTurn(fp:a) = %v, %v; want the turn", ok, err)
	}

	shared := []string{"fp:x", "fp:y", "fp:z", "call:s"}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		keys := slices.Clone(shared)
		if i%2 == 1 {
			slices.Reverse(keys)
		}
		wg.Go(func() {
			for j := range 5 {
				rec := store.TurnRecord{ID: fmt.Sprintf("chatcmpl-%d-%d", i, j), Keys: append(keys, fmt.Sprintf("call:%d-%d", i, j)), Messages: msgs}
				if err := s.SaveTurn(ctx, rec); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("SaveTurn of turns sharing keys: %v", err)
	}
	for _, k := range shared {
		if rec, ok, err := s.FindTurn(ctx, k); !ok || err != nil || !slices.Contains(rec.Keys, k) {
			t.Errorf("FindTurn(%s) = %v, %v; want one of the turns", k, ok, err)
		}
	}
}
