package badger

import (
	"errors"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
)

// openWithSpare opens a memory store whose spare transactions are ready.
func openWithSpare(t *testing.T) *DB {
	t.Helper()
	db, err := Open(config.Storage{InMemory: true}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.fillSpare()
	for range 1000 {
		db.spare.mu.Lock()
		ready := len(db.spare.txns) == spareCount
		db.spare.mu.Unlock()
		if ready {
			return db
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no spare transaction after a second")
	return nil
}

// A spare transaction begins before commits that StartCall then writes
// beside: its record, and theirs, read as written.
func TestStartCallOnOlderSnapshot(t *testing.T) {
	db := openWithSpare(t)
	ctx := t.Context()
	at := time.Now().UTC().Truncate(time.Millisecond)
	other := store.CallRecord{ID: "tcr_other", Tool: "t", Status: store.StatusOK, StartedAt: at}
	if err := db.RecordCall(ctx, other); err != nil {
		t.Fatal(err)
	}
	rec := store.CallRecord{ID: "tcr_new", Tool: "t", Status: store.StatusStarted, StartedAt: at}
	if err := db.StartCall(ctx, rec, nil); err != nil {
		t.Fatal(err)
	}
	for id, status := range map[string]string{"tcr_other": store.StatusOK, "tcr_new": store.StatusStarted} {
		got, ok, err := db.Call(ctx, id)
		if err != nil || !ok || got.Status != status {
			t.Errorf("Call(%s) = %+v, %v, %v; want %s", id, got, ok, err, status)
		}
	}
}

// A record written under the same id after the spare began (the spare's
// snapshot does not see it) is replaced, not left beside the new one:
// badger refuses the spare's commit as a conflict and StartCall runs
// again on a fresh transaction.
func TestStartCallOverRecordTheSpareDoesNotSee(t *testing.T) {
	db := openWithSpare(t)
	ctx := t.Context()
	at := time.Now().UTC().Truncate(time.Millisecond)
	first := store.CallRecord{ID: "tcr_1", Tool: "t", Status: store.StatusPendingApproval, StartedAt: at}
	if err := db.RecordCall(ctx, first); err != nil {
		t.Fatal(err)
	}
	again := store.CallRecord{ID: "tcr_1", Tool: "t", Status: store.StatusStarted, StartedAt: at.Add(time.Second)}
	if err := db.StartCall(ctx, again, nil); err != nil {
		t.Fatal(err)
	}
	page, _, err := db.Calls(ctx, store.CallQuery{Limit: 10})
	if err != nil || len(page) != 1 || page[0].Status != store.StatusStarted {
		t.Errorf("Calls = %d records %+v, %v; want the one record, started", len(page), page, err)
	}
}

// Close discards the spare, and a StartCall after it is refused.
func TestSpareAfterClose(t *testing.T) {
	db := openWithSpare(t)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.StartCall(t.Context(), store.CallRecord{ID: "tcr_1", Tool: "t", StartedAt: time.Now()}, nil); !errors.Is(err, store.ErrClosed) {
		t.Errorf("StartCall after Close = %v, want %v", err, store.ErrClosed)
	}
}
