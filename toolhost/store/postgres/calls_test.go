package postgres

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

// TestFinishCallStatement: the one statement that finishes a call writes
// the replay rows and the notification only when the record is there, and
// a record finished without a start keeps the stored one.
func TestFinishCallStatement(t *testing.T) {
	t.Parallel()
	s := store.Checked(openDB(t, pgtest.Start(t), Options{}))
	ctx := t.Context()
	changes := make(chan store.Change, 16)
	stop := s.Subscribe(func(c store.Change) {
		if c.Kind != store.ChangeResync {
			changes <- c
		}
	})
	defer stop()
	ref := func() *store.AttemptRef {
		return &store.AttemptRef{Attempt: "att_1", TTL: time.Hour, Also: "att_2", AlsoTTL: time.Hour, Replay: store.Replay{Tool: "t"}}
	}

	unknown := store.CallRecord{ID: "tcr_9", Tool: "t", Status: store.StatusOK, StartedAt: time.Now()}
	if err := s.FinishCall(ctx, unknown, ref()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("FinishCall of an unknown call = %v, want ErrNotFound", err)
	}
	if got, err := s.Replays(ctx, "att_1"); err != nil || len(got) != 0 {
		t.Errorf("Replays after a failed finish = %+v, %v; want none", got, err)
	}

	start := time.Now().UTC().Truncate(time.Microsecond).Add(-time.Minute)
	rec := store.CallRecord{ID: "tcr_1", Tool: "t", Arguments: json.RawMessage(`{}`), StartedAt: start, Instance: "inst_1"}
	if err := s.StartCall(ctx, rec, ref()); err != nil {
		t.Fatal(err)
	}
	rec.StartedAt, rec.Status = time.Time{}, store.StatusOK
	fin := ref()
	fin.Replay.Content = "done"
	if err := s.FinishCall(ctx, rec, fin); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Call(ctx, "tcr_1")
	if err != nil || !ok || got.Status != store.StatusOK || !got.StartedAt.Equal(start) {
		t.Errorf("Call = %+v, %v, %v; want ok, started at %v", got, ok, err, start)
	}
	for _, g := range []string{"att_1", "att_2"} {
		r, err := s.Replays(ctx, g)
		if err != nil || len(r) != 1 || r[0].Status != store.StatusOK || r[0].Content != "done" || !r[0].StartedAt.Equal(start) {
			t.Errorf("Replays(%s) = %+v, %v; want the finished call", g, r, err)
		}
	}
	select {
	case c := <-changes:
		if c != (store.Change{Kind: store.ChangeCall, ID: "tcr_1"}) {
			t.Errorf("first change = %+v, want the finished call's (none for the failed finish)", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no change for the finished call")
	}
}
