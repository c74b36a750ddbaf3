package loop

import "time"

// The turn's lock and the writers that borrow it. The turn's goroutine
// holds tr.mu and writes to the client; while it waits — for the upstream,
// for a call — it lends the lock (unlocked), and an approval event
// (showAsync) or a keepalive tick (startKeepalive) writes meanwhile. The
// first error one of them meets writing is kept in tr.asyncErr.

// unlocked runs f, which waits, without the turn's lock, after flushing
// what is held: others may write meanwhile.
func (tr *turnRun) unlocked(f func()) {
	tr.flush()
	tr.mu.Unlock()
	defer tr.mu.Lock()
	f()
}

// flush writes out what the sink holds. An error is the client gone; the
// next write reports it.
func (tr *turnRun) flush() { tr.s.out.flush() }

// showAsync writes an approval event from a call's goroutine.
func (tr *turnRun) showAsync(n *approvalNote) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.asyncErr != nil {
		return
	}
	if err := tr.approvalEvent(n); err != nil {
		tr.asyncErr = err
		return
	}
	tr.flush()
}

// startKeepalive sends ": keepalive" every loop.keepalive in which nothing
// was written, once the stream is committed, from a timer: this goroutine
// may be waiting on the upstream or a call meanwhile. The returned stop is
// called with the lock held; a tick already waiting for the lock then
// writes nothing.
func (tr *turnRun) startKeepalive() (stop func()) {
	k := tr.t.Loop.Keepalive
	if k <= 0 || tr.plain {
		return func() {}
	}
	stopped := false // guarded by tr.mu
	var t *time.Timer
	t = time.AfterFunc(k, func() {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		if stopped {
			return
		}
		if err := tr.keepalive(); err != nil && tr.asyncErr == nil {
			tr.asyncErr = err
		}
		tr.flush()
		t.Reset(k)
	})
	return func() {
		stopped = true
		t.Stop()
	}
}

// keepalive sends ": keepalive" when nothing was written since the last
// tick, once the stream is committed: before that, an error can still be
// an HTTP status.
func (tr *turnRun) keepalive() error {
	out := &tr.s.out
	if out.committed && !out.wrote {
		if err := out.keepalive(); err != nil {
			return err
		}
	}
	out.wrote = false
	return nil
}
