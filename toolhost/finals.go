package toolhost

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

// Retries of a call's final record whose write failed: soon at first (a
// connection the database dropped is back in a moment), then every
// retryMax at most (a database restarting or failing over).
const (
	retryFirst = 500 * time.Millisecond
	retryMax   = 15 * time.Second
)

// finalsBudget bounds the bytes of final records waiting for storage. A
// record is small, but its replay entry holds the whole result; past the
// budget a record is given up, and the sweep marks it outcome_unknown.
const finalsBudget = 32 << 20

// finals sees that every call's final record reaches storage, also when
// the database was away as the call ended: the call has run, its record
// must not stay started. A write that fails for the storage's sake is
// kept and retried in the background, with backoff, until storage takes
// it or the record would have expired (audit retention). Once storage
// answers again, the process also resolves its own started records whose
// call it no longer runs ([store.Store.ResolveStarted]): it alone knows
// which it runs, and no other replica touches a live one's calls.
type finals struct {
	records   Records
	log       *slog.Logger
	now       func() time.Time
	instance  string
	retention time.Duration

	mu sync.Mutex
	// running holds the calls whose started record is (or may be)
	// written and whose final record is not yet with storage or pending.
	running map[string]struct{}
	pending map[string]*finalWrite
	bytes   int
	// unsure: a final write failed since the last sweep, so this
	// process may have left started records.
	unsure  bool
	looping bool
	closed  bool
	stop    chan struct{}
	done    chan struct{}
}

// finalWrite is one call's final record, as finishRecord or record would
// have written it.
type finalWrite struct {
	rec store.CallRecord
	ref *store.AttemptRef
	// started: the record was written started, so this replaces it
	// (FinishCall); otherwise it is written whole (RecordCall).
	started bool
	// until is when the record expires: no use writing it later.
	until time.Time
	size  int
}

func (f *finals) init(records Records, log *slog.Logger, now func() time.Time, instance string, retention time.Duration) {
	f.records, f.log, f.now, f.instance, f.retention = records, log, now, instance, retention
	f.running, f.pending = map[string]struct{}{}, map[string]*finalWrite{}
	f.stop = make(chan struct{})
}

// begin notes a call about to be written started: from now until its
// final record is written or pending, the sweep leaves it alone.
func (f *finals) begin(id string) {
	f.mu.Lock()
	f.running[id] = struct{}{}
	f.mu.Unlock()
}

// busy reports a call this process runs, or whose final record waits.
func (f *finals) busy(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, running := f.running[id]
	_, waiting := f.pending[id]
	return running || waiting
}

// write writes w once, bounded; on a failure of the storage, it keeps w
// for the background retries. It never waits for those.
func (f *finals) write(ctx context.Context, w *finalWrite) {
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bookkeepingTimeout)
	err := f.put(bctx, w)
	cancel()
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.running, w.rec.ID)
	if err == nil {
		return
	}
	attrs := []slog.Attr{slog.String("tool", w.rec.Tool), slog.String("call_id", w.rec.CallID),
		slog.String("audit_id", w.rec.ID), slog.String("error", err.Error())}
	switch {
	case !retryable(err):
		f.log.LogAttrs(ctx, slog.LevelError, "audit log write failed", attrs...)
		return
	case f.closed:
		f.log.LogAttrs(ctx, slog.LevelError, "audit log write failed while shutting down; the record is lost", attrs...)
		return
	}
	f.unsure = true
	w.size = recordSize(w)
	if f.bytes+w.size > finalsBudget {
		f.log.LogAttrs(ctx, slog.LevelError, "audit log write failed with too many records waiting; the record will say outcome_unknown", attrs...)
		f.wakeLocked()
		return
	}
	f.log.LogAttrs(ctx, slog.LevelWarn, "audit log write failed; retrying in the background", attrs...)
	f.pending[w.rec.ID] = w
	f.bytes += w.size
	f.wakeLocked()
}

// put writes w as its call's final record.
func (f *finals) put(ctx context.Context, w *finalWrite) error {
	if w.started {
		return f.records.FinishCall(ctx, w.rec, w.ref)
	}
	return f.records.RecordCall(ctx, w.rec)
}

// wakeLocked starts the retry loop unless it runs. f.mu is held.
func (f *finals) wakeLocked() {
	if f.looping || f.closed {
		return
	}
	f.looping = true
	f.done = make(chan struct{})
	go f.loop(f.done)
}

// loop retries the pending records and then sweeps, with backoff while
// storage fails, and ends once nothing is left to do.
func (f *finals) loop(done chan struct{}) {
	defer close(done)
	delay := retryFirst
	t := time.NewTimer(delay)
	defer t.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
		}
		if f.flush() && f.sweep() {
			if f.idle() {
				return
			}
			delay = retryFirst
		} else {
			delay = min(2*delay, retryMax)
		}
		t.Reset(delay)
	}
}

// flush writes the pending records, oldest first, and reports whether
// none is left. It stops at the first failure: storage is still away.
func (f *finals) flush() bool {
	for _, w := range f.waiting() {
		if !f.now().Before(w.until) {
			f.drop(w, "the record expired before storage took it")
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), bookkeepingTimeout)
		err := f.put(ctx, w)
		cancel()
		switch {
		case err == nil:
			f.drop(w, "")
		case !retryable(err):
			f.drop(w, err.Error())
		default:
			return false
		}
	}
	return true
}

// waiting is the pending records, oldest first.
func (f *finals) waiting() []*finalWrite {
	f.mu.Lock()
	defer f.mu.Unlock()
	ws := make([]*finalWrite, 0, len(f.pending))
	for _, w := range f.pending {
		ws = append(ws, w)
	}
	slices.SortFunc(ws, func(a, b *finalWrite) int { return a.rec.StartedAt.Compare(b.rec.StartedAt) })
	return ws
}

// drop removes w from the pending records: written when lost is empty,
// else given up for that reason.
func (f *finals) drop(w *finalWrite, lost string) {
	f.mu.Lock()
	delete(f.pending, w.rec.ID)
	f.bytes -= w.size
	f.mu.Unlock()
	attrs := []slog.Attr{slog.String("tool", w.rec.Tool), slog.String("call_id", w.rec.CallID), slog.String("audit_id", w.rec.ID)}
	if lost == "" {
		f.log.LogAttrs(context.Background(), slog.LevelInfo, "audit log write succeeded on a retry", attrs...)
		return
	}
	f.log.LogAttrs(context.Background(), slog.LevelError, "audit log write given up", append(attrs, slog.String("reason", lost))...)
}

// sweep resolves this process's started records whose call it no longer
// runs, after a final write failed; it reports whether that is done.
func (f *finals) sweep() bool {
	f.mu.Lock()
	unsure := f.unsure
	f.unsure = false
	f.mu.Unlock()
	if !unsure {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), bookkeepingTimeout)
	n, err := f.records.ResolveStarted(ctx, f.instance, f.busy)
	cancel()
	if err != nil {
		f.mu.Lock()
		f.unsure = true
		f.mu.Unlock()
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

// idle ends the loop when nothing waits: it reports true and the next
// failure starts a new one.
func (f *finals) idle() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pending) > 0 || f.unsure {
		return false
	}
	f.looping = false
	return true
}

// close stops the retries, tries each pending record once more, and logs
// those still lost: the next start (badger) or another replica
// (PostgreSQL) marks them outcome_unknown. Later failures are logged as
// lost at once.
func (f *finals) close() {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	f.closed = true
	done := f.done
	if f.looping {
		close(f.stop)
	}
	f.mu.Unlock()
	if done != nil {
		<-done
	}
	for _, w := range f.waiting() {
		ctx, cancel := context.WithTimeout(context.Background(), bookkeepingTimeout)
		err := f.put(ctx, w)
		cancel()
		if err == nil {
			f.drop(w, "")
		} else {
			f.drop(w, "shutting down while storage failed: "+err.Error())
		}
	}
}

// retryable reports a write that failed for the storage's sake, which a
// later try may get through; not a record refused for what it is, nor a
// closed store.
func retryable(err error) bool {
	for _, final := range []error{store.ErrNotFound, store.ErrTooLarge, store.ErrInvalidKey, store.ErrClosed} {
		if errors.Is(err, final) {
			return false
		}
	}
	return true
}

// recordSize estimates the memory w holds.
func recordSize(w *finalWrite) int {
	n := 512 + len(w.rec.Arguments) + len(w.rec.ResultExcerpt) + len(w.rec.ErrorMessage)
	if w.ref != nil {
		n += len(w.ref.Replay.Content) + len(w.ref.Replay.ErrorMessage)
	}
	return n
}
