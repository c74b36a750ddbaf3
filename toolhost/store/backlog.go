package store

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// Retries of a write in a [Backlog]: soon at first (a connection the
// database dropped is back in a moment), then every backlogRetryMax at
// most (a database restarting or failing over).
const (
	backlogRetryFirst = 500 * time.Millisecond
	backlogRetryMax   = 15 * time.Second
)

// backlogBudget bounds the bytes of writes waiting in a backlog: past it,
// a write is given up rather than grow memory through a long outage.
const backlogBudget = 32 << 20

// bookkeepingTimeout bounds one try of a waiting write.
const bookkeepingTimeout = 5 * time.Second

// Backlog keeps writes that failed for the storage's sake — the database
// went away, the disk is full — and retries them in the background, with
// backoff, until storage takes each or it would have expired: a record
// whose moment has passed (a call's final state, a turn kept for
// stitching) is written late rather than lost. One goroutine retries
// while something waits, none otherwise; [Backlog.Close] stops it, tries
// each waiting write once more and logs those lost. The zero value is
// not ready: use [NewBacklog].
type Backlog struct {
	log *slog.Logger
	// drained, when set, runs after every waiting write went through:
	// storage answers again. False asks to run it again later.
	drained func() bool

	mu      sync.Mutex
	pending map[string]*backlogWrite
	bytes   int
	// dirty: something failed since drained last ran.
	dirty   bool
	looping bool
	closed  bool
	stop    chan struct{}
	done    chan struct{}
}

type backlogWrite struct {
	key   string
	what  string // for the log: "audit record", "turn record"…
	at    time.Time
	until time.Time
	size  int
	write func(ctx context.Context) error
	attrs []slog.Attr
}

// NewBacklog returns a backlog that logs to log; drained, when not nil,
// runs once storage took every waiting write after a failure.
func NewBacklog(log *slog.Logger, drained func() bool) *Backlog {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Backlog{log: log, drained: drained, pending: map[string]*backlogWrite{}, stop: make(chan struct{})}
}

// Pending reports whether the write filed under key waits.
func (b *Backlog) Pending(key string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.pending[key]
	return ok
}

// Write tries write once, bounded, and when it fails for the storage's
// sake keeps it under key (replacing one waiting there) for the
// background retries, until until. what and attrs name the record in the
// log; size is about the memory write holds. It never waits for a retry.
// Its error is write's when no retry could help: a record refused for
// what it is, or a closed store.
func (b *Backlog) Write(ctx context.Context, key, what string, until time.Time, size int, write func(ctx context.Context) error, attrs ...slog.Attr) error {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bookkeepingTimeout)
	err := write(wctx)
	cancel()
	if err == nil {
		return nil
	}
	attrs = append(attrs, slog.String("error", err.Error()))
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case !retryable(err):
		b.log.LogAttrs(ctx, slog.LevelError, what+" write failed", attrs...)
		return err
	case b.closed:
		b.log.LogAttrs(ctx, slog.LevelError, what+" write failed while shutting down; it is lost", attrs...)
		return nil
	}
	b.dirty = true
	if old := b.pending[key]; old != nil {
		b.bytes -= old.size
	}
	if b.bytes+size > backlogBudget {
		b.log.LogAttrs(ctx, slog.LevelError, what+" write failed with too many writes waiting; it is lost", attrs...)
		delete(b.pending, key)
		b.wakeLocked()
		return nil
	}
	b.log.LogAttrs(ctx, slog.LevelWarn, what+" write failed; retrying in the background", attrs...)
	b.pending[key] = &backlogWrite{key: key, what: what, at: time.Now(), until: until, size: size, write: write, attrs: slices.Clone(attrs[:len(attrs)-1])}
	b.bytes += size
	b.wakeLocked()
	return nil
}

// retryable reports a write that failed for the storage's sake, which a
// later try may get through; not a record refused for what it is, nor a
// closed store.
func retryable(err error) bool {
	for _, final := range []error{ErrNotFound, ErrTooLarge, ErrInvalidKey, ErrExists, ErrDecided, ErrClosed} {
		if errors.Is(err, final) {
			return false
		}
	}
	return true
}

// wakeLocked starts the retry loop unless it runs. b.mu is held.
func (b *Backlog) wakeLocked() {
	if b.looping || b.closed {
		return
	}
	b.looping = true
	b.done = make(chan struct{})
	go b.loop(b.done)
}

// loop retries the waiting writes, then runs drained, with backoff while
// storage fails, and ends once nothing is left to do.
func (b *Backlog) loop(done chan struct{}) {
	defer close(done)
	delay := backlogRetryFirst
	t := time.NewTimer(delay)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
		}
		if b.flush() && b.settle() {
			if b.idle() {
				return
			}
			delay = backlogRetryFirst
		} else {
			delay = min(2*delay, backlogRetryMax)
		}
		t.Reset(delay)
	}
}

// flush tries the waiting writes, oldest first, and reports whether none
// is left. It stops at the first failure: storage is still away.
func (b *Backlog) flush() bool {
	for _, w := range b.waiting() {
		if !time.Now().Before(w.until) {
			b.drop(w, "it expired before storage took it")
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), bookkeepingTimeout)
		err := w.write(ctx)
		cancel()
		switch {
		case err == nil:
			b.drop(w, "")
		case !retryable(err):
			b.drop(w, err.Error())
		default:
			return false
		}
	}
	return true
}

// waiting is the waiting writes, oldest first.
func (b *Backlog) waiting() []*backlogWrite {
	b.mu.Lock()
	defer b.mu.Unlock()
	ws := make([]*backlogWrite, 0, len(b.pending))
	for _, w := range b.pending {
		ws = append(ws, w)
	}
	slices.SortFunc(ws, func(x, y *backlogWrite) int { return x.at.Compare(y.at) })
	return ws
}

// drop removes w from the waiting writes: written when lost is empty,
// else given up for that reason. A write filed again under its key
// meanwhile stays.
func (b *Backlog) drop(w *backlogWrite, lost string) {
	b.mu.Lock()
	if b.pending[w.key] == w {
		delete(b.pending, w.key)
		b.bytes -= w.size
	}
	b.mu.Unlock()
	if lost == "" {
		b.log.LogAttrs(context.Background(), slog.LevelInfo, w.what+" written on a retry", w.attrs...)
		return
	}
	b.log.LogAttrs(context.Background(), slog.LevelError, w.what+" write given up", append(w.attrs, slog.String("reason", lost))...)
}

// settle runs drained after a failure, and reports whether it is done.
func (b *Backlog) settle() bool {
	b.mu.Lock()
	dirty := b.dirty
	b.dirty = false
	b.mu.Unlock()
	if !dirty || b.drained == nil || b.drained() {
		return true
	}
	b.mu.Lock()
	b.dirty = true
	b.mu.Unlock()
	return false
}

// idle ends the loop when nothing waits: it reports true, and the next
// failure starts a new one.
func (b *Backlog) idle() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pending) > 0 || b.dirty {
		return false
	}
	b.looping = false
	return true
}

// Close stops the retries, tries each waiting write once more, and logs
// those lost. A write that fails after Close is logged as lost at once.
// Calling it again does nothing.
func (b *Backlog) Close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	done := b.done
	if b.looping {
		close(b.stop)
	}
	b.mu.Unlock()
	if done != nil {
		<-done
	}
	for _, w := range b.waiting() {
		ctx, cancel := context.WithTimeout(context.Background(), bookkeepingTimeout)
		err := w.write(ctx)
		cancel()
		if err == nil {
			b.drop(w, "")
		} else {
			b.drop(w, "shutting down while storage failed: "+err.Error())
		}
	}
}
