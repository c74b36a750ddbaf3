package toolhost

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

// finals sees that every call's final record reaches storage, also when
// the database was away as the call ended: the call has run, its record
// must not stay started. A write that fails for the storage's sake waits
// in a [store.Backlog], retried in the background until storage takes it
// or the record would have expired (audit retention). Once storage
// answers again, the process also resolves its own started records whose
// call it no longer runs ([store.Lifecycle.ResolveStarted]): it alone knows
// which it runs, and no other replica touches a live one's calls.
type finals struct {
	records   Records
	log       *slog.Logger
	now       func() time.Time
	instance  string
	retention time.Duration
	backlog   *store.Backlog

	mu sync.Mutex
	// running holds the calls whose started record is (or may be)
	// written and whose final record is neither written nor waiting.
	running map[string]struct{}
}

// finalWrite is one call's final record, as finishRecord or record would
// have written it.
type finalWrite struct {
	rec store.CallRecord
	ref *store.AttemptRef
	// started: the record was written started, so this replaces it
	// (FinishCall); otherwise it is written whole (RecordCall).
	started bool
}

func (f *finals) init(records Records, log *slog.Logger, now func() time.Time, instance string, retention time.Duration) {
	f.records, f.log, f.now, f.instance, f.retention = records, log, now, instance, retention
	f.running = map[string]struct{}{}
	f.backlog = store.NewBacklog(log, f.sweep)
}

// begin notes a call about to be written started: from now until its
// final record is written or waiting, the sweep leaves it alone.
func (f *finals) begin(id string) {
	f.mu.Lock()
	f.running[id] = struct{}{}
	f.mu.Unlock()
}

// busy reports a call this process runs, or whose final record waits.
func (f *finals) busy(id string) bool {
	f.mu.Lock()
	_, running := f.running[id]
	f.mu.Unlock()
	return running || f.backlog.Pending(id)
}

// write writes w once, bounded; on a failure of the storage, w waits in
// the backlog. It never waits for the retries.
func (f *finals) write(ctx context.Context, w *finalWrite) {
	// Until the record expires, on the wall clock: f.now may be pinned.
	until := time.Now().Add(w.rec.StartedAt.Add(f.retention).Sub(f.now()))
	f.backlog.Write(ctx, w.rec.ID, "audit log", until, recordSize(w), func(ctx context.Context) error {
		if w.started {
			return f.records.FinishCall(ctx, w.rec, w.ref)
		}
		return f.records.RecordCall(ctx, w.rec)
	}, slog.String("tool", w.rec.Tool), slog.String("call_id", w.rec.CallID), slog.String("audit_id", w.rec.ID))
	// Only now: until the backlog holds it, the call counts as running.
	f.mu.Lock()
	delete(f.running, w.rec.ID)
	f.mu.Unlock()
}

// sweep resolves this process's started records whose call it no longer
// runs; the backlog runs it once storage took every waiting write after
// a failure. It reports whether that is done.
func (f *finals) sweep() bool {
	ctx, cancel := context.WithTimeout(context.Background(), bookkeepingTimeout)
	n, err := f.records.ResolveStarted(ctx, f.instance, f.busy)
	cancel()
	if err != nil {
		f.log.LogAttrs(context.Background(), slog.LevelWarn, "resolving this process's started calls failed; retrying",
			slog.String("error", err.Error()))
		return false
	}
	if n > 0 {
		f.log.LogAttrs(context.Background(), slog.LevelWarn, "calls whose final record was lost are now outcome_unknown",
			slog.Int("calls", n))
	}
	return true
}

// close stops the retries, tries each waiting record once more, and logs
// those lost: the next start (badger) or another replica (PostgreSQL)
// marks them outcome_unknown.
func (f *finals) close() { f.backlog.Close() }

// recordSize estimates the memory w holds.
func recordSize(w *finalWrite) int {
	n := 512 + len(w.rec.Arguments) + len(w.rec.ResultExcerpt) + len(w.rec.ErrorMessage)
	if w.ref != nil {
		n += len(w.ref.Replay.Content) + len(w.ref.Replay.ErrorMessage)
	}
	return n
}
