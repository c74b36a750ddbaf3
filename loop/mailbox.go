package loop

import (
	"context"
	"sync"
	"time"
)

// One writer. The turn's goroutine is the only one that writes to the
// client. What comes from elsewhere — an approval event from a call's
// goroutine, a progress report, the keepalive's due time — is posted to
// the round's mailbox, which wakes the turn: out of a select where it
// waits for a call or the upstream's answer, or by interrupting the read
// of an upstream stream that can be interrupted (a [Waiter]). The
// turn then writes what was posted (serve) and waits on.

// mailbox is one round's way to the turn from other goroutines.
type mailbox struct {
	// wake, with room for one, says a post or a due time wants the
	// turn; a full one already says so.
	wake chan struct{}

	mu sync.Mutex
	// approvals are the approval events posted and not written yet.
	approvals []approvalPost
	// st is the stream the turn reads, interrupted by a poke; nil while
	// it reads none.
	st Waiter
}

// approvalPost is an approval event and the poster waiting for it to be
// written.
type approvalPost struct {
	n    *approvalNote
	done chan struct{}
}

func newMailbox() *mailbox { return &mailbox{wake: make(chan struct{}, 1)} }

// poke wakes the turn, from any goroutine: its next wait ends at once,
// and an interruptible read it waits in ends now.
func (m *mailbox) poke() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
	m.mu.Lock()
	st := m.st
	m.mu.Unlock()
	if st != nil {
		st.Interrupt()
	}
}

// postApproval posts an approval event and waits until the turn wrote it,
// as the call's own goroutine must: a person decides only once the client
// shows the event, and the call's approval.resolved and tool.finished
// come after it. The round's end (ctx) stops the wait; the event is then
// dropped with the round.
func (m *mailbox) postApproval(ctx context.Context, n *approvalNote) {
	done := make(chan struct{})
	m.mu.Lock()
	m.approvals = append(m.approvals, approvalPost{n: n, done: done})
	m.mu.Unlock()
	m.poke()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// takeApprovals takes the approval events posted so far.
func (m *mailbox) takeApprovals() []approvalPost {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.approvals
	m.approvals = nil
	return a
}

// reading sets the stream a poke interrupts; nil once it is read.
func (m *mailbox) reading(st Waiter) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.st = st
	m.mu.Unlock()
}

// serve writes what was posted and what is due, on the turn's goroutine,
// once a poke woke it (its token taken): approval events, progress, a
// keepalive; the caller flushes. A write that fails is the client gone; it is kept in waitErr, which the turn returns
// once it stops waiting, and nothing more is written.
func (tr *turnRun) serve() {
	m := tr.mail
	for _, a := range m.takeApprovals() {
		if tr.waitErr == nil {
			tr.waitErr = tr.approvalEvent(a.n)
		}
		close(a.done)
	}
	if tr.waitErr == nil {
		tr.waitErr = tr.progress.show(time.Now())
	}
	if tr.waitErr == nil {
		tr.waitErr = tr.keepaliveDue(time.Now())
	}
}

// woken serves the mailbox if it was poked since it was last served:
// every post and due time pokes it, so a read of the upstream costs no
// more than a look at wake when nothing came.
func (tr *turnRun) woken() {
	if tr.mail == nil {
		return
	}
	select {
	case <-tr.mail.wake:
		tr.serve()
	default:
	}
}

// beforeWait runs before each read of the upstream that may wait, and
// when a poke interrupted one: what was posted meanwhile goes out,
// everything held is flushed, and the stream's parser goes back to its
// pool.
func (tr *turnRun) beforeWait() {
	tr.woken()
	tr.flush()
	tr.s.idle()
}

// flush writes out what the sink holds. An error is the client gone; the
// next write reports it.
func (tr *turnRun) flush() { tr.s.out.flush() }

// waitFor runs f, which waits, while serving the mailbox: f runs in a
// goroutine of its own, and every wake meanwhile is served here. A plain
// turn, which has no mailbox, runs f here, and so does a turn whose
// stream is not committed yet: nothing can be posted while a round opens
// (its calls have not started, and the last round's have ended) but a
// keepalive, and none is written before the first byte. The first round
// of every turn thus opens on the turn's goroutine, without a second
// goroutine and stack per open stream.
func (tr *turnRun) waitFor(f func()) {
	tr.flush()
	if tr.mail == nil || !tr.s.out.committed {
		f()
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	for {
		select {
		case <-done:
			return
		case <-tr.mail.wake:
			tr.serve()
			tr.flush()
		}
	}
}

// keepalives are a round's ": keepalive" comments: one every
// loop.keepalive in which nothing was written, once the stream is
// committed. The turn computes when the next is due; a timer only wakes
// it then.
type keepalives struct {
	every time.Duration
	due   time.Time
	t     *time.Timer
}

// startKeepalive starts the round's keepalives; none in a plain turn or
// with loop.keepalive 0.
func (tr *turnRun) startKeepalive() {
	k := tr.t.Loop.Keepalive
	if k <= 0 || tr.plain {
		return
	}
	tr.ka = &keepalives{every: k, due: time.Now().Add(k), t: time.AfterFunc(k, tr.mail.poke)}
}

// stopKeepalive stops the round's keepalives. A timer that fired already
// only pokes a mailbox no one serves any more.
func (tr *turnRun) stopKeepalive() {
	if tr.ka != nil {
		tr.ka.t.Stop()
		tr.ka = nil
	}
}

// keepaliveDue sends ": keepalive" when one is due and nothing was written
// since the last, once the stream is committed: before that, an error can
// still be an HTTP status.
func (tr *turnRun) keepaliveDue(now time.Time) error {
	ka := tr.ka
	if ka == nil || now.Before(ka.due) {
		return nil
	}
	ka.due = now.Add(ka.every)
	ka.t.Reset(ka.every)
	out := &tr.s.out
	if out.committed && !out.wrote {
		if err := out.keepalive(); err != nil {
			return err
		}
	}
	out.wrote = false
	return nil
}
