package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

// feedWait bounds how long a change may take to arrive. PostgreSQL's
// notifications take milliseconds; the bound is for a loaded machine.
const feedWait = 5 * time.Second

// changes subscribes to s and returns the changes it hears, resyncs left
// out (a backend may send one at any time), and the stop.
func changes(t *testing.T, s store.Store) (<-chan store.Change, func()) {
	ch := make(chan store.Change, 64)
	stop := s.Subscribe(func(c store.Change) {
		if c.Kind != store.ChangeResync {
			ch <- c
		}
	})
	t.Cleanup(stop)
	return ch, stop
}

// wantChanges checks that ch delivers want, in order, and nothing else.
// A change published again before the subscriber got it is heard once
// (ChangeFeed), so a run of equal changes in want may come as one.
func wantChanges(t *testing.T, ch <-chan store.Change, want ...store.Change) {
	t.Helper()
	var last *store.Change
	for i := 0; i < len(want); {
		select {
		case got := <-ch:
			if last != nil && got == *last {
				continue // the run's repeat, not merged
			}
			if got != want[i] {
				t.Fatalf("change = %v %q, want %v %q", got.Kind, got.ID, want[i].Kind, want[i].ID)
			}
			last = &want[i]
			for i++; i < len(want) && want[i] == *last; i++ {
			}
		case <-time.After(feedWait):
			t.Fatalf("no change within %s, want %v %q", feedWait, want[i].Kind, want[i].ID)
		}
	}
}

func testFeed(t *testing.T, open opener) {
	parallel(t, open, "EveryKind", func(t *testing.T, s store.Store) {
		ctx := t.Context()
		ch, _ := changes(t, s)

		must(t, "CreateAction", s.CreateAction(ctx, action("act_1", "key_a", now())))
		_, err := s.DecideAction(ctx, "act_1", store.ActionApproved, "key_a", "")
		must(t, "DecideAction", err)
		_, err = s.DecideAction(ctx, "act_1", store.ActionDenied, "key_a", "") // refused: no change
		wantErr(t, "second DecideAction", err, store.ErrDecided)
		rec := callRecord("tcr_1", "t", now())
		must(t, "StartCall", s.StartCall(ctx, rec, nil)) // not finished: no change
		must(t, "FinishCall", s.FinishCall(ctx, finished(rec, store.StatusOK), nil))
		must(t, "PutTool", s.PutTool(ctx, store.RuntimeTool{Name: "t1", Spec: json.RawMessage(`{}`)}))
		_, err = s.DeleteTool(ctx, "t1")
		must(t, "DeleteTool", err)
		k := runtimeKey("k1")
		must(t, "CreateKey", s.CreateKey(ctx, k))
		wantErr(t, "CreateKey again", s.CreateKey(ctx, k), store.ErrExists) // no change
		_, err = s.UpdateKey(ctx, k)
		must(t, "UpdateKey", err)
		_, err = s.DeleteKey(ctx, "k1")
		must(t, "DeleteKey", err)

		wantChanges(t, ch,
			store.Change{Kind: store.ChangeAction, ID: "act_1"},
			store.Change{Kind: store.ChangeAction, ID: "act_1"},
			store.Change{Kind: store.ChangeCall, ID: "tcr_1"},
			store.Change{Kind: store.ChangeTools, ID: "t1"},
			store.Change{Kind: store.ChangeTools, ID: "t1"},
			store.Change{Kind: store.ChangeKeys, ID: "k1"},
			store.Change{Kind: store.ChangeKeys, ID: "k1"},
			store.Change{Kind: store.ChangeKeys, ID: "k1"},
		)
	})
	parallel(t, open, "SlowSubscriber", func(t *testing.T, s store.Store) {
		// A subscriber that does not return holds up neither writers nor
		// other subscribers.
		ctx := t.Context()
		release := make(chan struct{})
		defer close(release)
		stuck := s.Subscribe(func(store.Change) { <-release })
		defer func() { go stuck() }() // returns once release is closed
		ch, _ := changes(t, s)
		for i := range 3 {
			done := make(chan error, 1)
			go func() { done <- s.PutTool(ctx, store.RuntimeTool{Name: "t1", Spec: json.RawMessage(`{}`)}) }()
			select {
			case err := <-done:
				must(t, "PutTool", err)
			case <-time.After(feedWait):
				t.Fatalf("PutTool %d waited for a stuck subscriber", i)
			}
		}
		// Three puts of t1: heard one to three times (merged while queued).
		t1 := store.Change{Kind: store.ChangeTools, ID: "t1"}
		wantChanges(t, ch, t1, t1, t1)
	})
	parallel(t, open, "Stop", func(t *testing.T, s store.Store) {
		// After stop returns, f is never called again: a change made
		// then reaches a later subscriber but not the stopped one.
		ctx := t.Context()
		first, stop := changes(t, s)
		must(t, "PutTool", s.PutTool(ctx, store.RuntimeTool{Name: "a", Spec: json.RawMessage(`{}`)}))
		wantChanges(t, first, store.Change{Kind: store.ChangeTools, ID: "a"})
		stop()
		later, _ := changes(t, s)
		must(t, "PutTool", s.PutTool(ctx, store.RuntimeTool{Name: "b", Spec: json.RawMessage(`{}`)}))
		wantChanges(t, later, store.Change{Kind: store.ChangeTools, ID: "b"})
		select {
		case c := <-first:
			t.Errorf("stopped subscriber heard %v %q", c.Kind, c.ID)
		case <-time.After(50 * time.Millisecond):
		}
	})
	parallel(t, open, "Close", func(t *testing.T, s store.Store) {
		// Close ends every subscription; a stop after it returns at once.
		_, stop := changes(t, s)
		must(t, "Close", s.Close())
		done := make(chan struct{})
		go func() { stop(); close(done) }()
		select {
		case <-done:
		case <-time.After(feedWait):
			t.Fatal("stop after Close did not return")
		}
		s.Subscribe(func(store.Change) { t.Error("a subscriber after Close heard a change") })()
	})
}
