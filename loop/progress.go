package loop

import (
	"sync"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// progressEvery is the least time between two tool.progress events of one
// call (docs/stream.md). A tool may report thousands of steps a second; a
// client needs to see that it moves, and each event costs a write and a
// flush. Updates that come sooner are folded into the next event, which
// carries the newest; the last one is always shown before tool.finished.
const progressEvery = 100 * time.Millisecond

// progressFeed turns a round's progress reports into tool.progress events.
// Reports come from the calls' goroutines (or an MCP session's handler) and
// never wait for the client: they are noted under mu with the time the
// call's next event is due. The turn writes what is due when it serves its
// mailbox (show); one timer wakes it (poke) at the earliest due time. A
// timer that fires late only wakes a turn that finds nothing due.
type progressFeed struct {
	tr   *turnRun
	poke func()

	mu sync.Mutex
	// calls are the calls' throttles by call id; order, in the order
	// they first reported, so that events due together go out in one
	// order.
	calls   map[string]*callProgress
	order   []*callProgress
	stopped bool
	// t wakes the turn at armed, the earliest due time when it was set;
	// armed is zero when t is not running.
	t     *time.Timer
	armed time.Time
}

// callProgress is one call's throttle.
type callProgress struct {
	call toolhost.Call
	// last is when the call's last event went out; pending the newest
	// update not shown yet; due when its event is due, zero when none
	// is.
	last    time.Time
	pending *toolhost.ProgressUpdate
	due     time.Time
	// closed: the executor returned (or the call finished); a report
	// that comes later, from a notification still in flight, is dropped.
	closed bool
}

// newProgressFeed returns the round's feed, or nil when the client sees
// no events: display markdown or none, or an answer collected whole (a
// non-streaming client would read a list of progress it never watched).
func (tr *turnRun) newProgressFeed() *progressFeed {
	if tr.plain || tr.t.Loop.Display != config.DisplayEvents || tr.s.out.takes.NoProgress {
		return nil
	}
	return &progressFeed{tr: tr, poke: tr.mail.poke, calls: map[string]*callProgress{}}
}

// ToolProgress implements [toolhost.ProgressReporter].
func (c *calls) ToolProgress(call toolhost.Call, u toolhost.ProgressUpdate) {
	if c.progress != nil && c.ctx.Err() == nil {
		c.progress.report(call, u)
	}
}

// report notes u and makes sure an event will show it: at once when the
// call's last event is progressEvery old, else when it will be.
func (f *progressFeed) report(call toolhost.Call, u toolhost.ProgressUpdate) {
	f.mu.Lock()
	if f.stopped {
		f.mu.Unlock()
		return
	}
	cp := f.calls[call.ID]
	if cp == nil {
		cp = &callProgress{call: call}
		f.calls[call.ID] = cp
		f.order = append(f.order, cp)
	}
	if cp.closed {
		f.mu.Unlock()
		return
	}
	cp.pending = &u
	if !cp.due.IsZero() {
		f.mu.Unlock()
		return // one is due and will show the newest
	}
	now := time.Now()
	cp.due = cp.last.Add(progressEvery)
	if cp.due.Before(now) {
		cp.due = now
	}
	now = f.arm(now)
	f.mu.Unlock()
	if now.IsZero() {
		f.poke()
	}
}

// arm makes the timer wake the turn at the earliest due time; f.mu is
// held. It returns zero when a call is due now: the caller pokes the turn
// itself, once it let go of f.mu.
func (f *progressFeed) arm(now time.Time) time.Time {
	var next time.Time
	for _, cp := range f.order {
		if !cp.due.IsZero() && (next.IsZero() || cp.due.Before(next)) {
			next = cp.due
		}
	}
	switch {
	case next.IsZero() || !f.armed.IsZero() && !next.Before(f.armed):
		// Nothing due, or the timer wakes the turn soon enough.
	case !next.After(now):
		return time.Time{}
	case f.t == nil:
		f.t = time.AfterFunc(next.Sub(now), f.poke)
		f.armed = next
	default:
		f.t.Reset(next.Sub(now))
		f.armed = next
	}
	return now
}

// show writes, on the turn's goroutine, the pending update of every call
// whose event is due by now, unless the call's tool.finished (or the
// round's end) took it first, and sets the timer for the next.
func (f *progressFeed) show(now time.Time) error {
	if f == nil {
		return nil
	}
	var due []*callProgress
	var us []*toolhost.ProgressUpdate
	f.mu.Lock()
	if !f.armed.After(now) {
		f.armed = time.Time{} // the timer fired
	}
	for _, cp := range f.order {
		if cp.due.IsZero() || cp.due.After(now) {
			continue
		}
		u := cp.pending
		cp.pending, cp.due = nil, time.Time{}
		if u != nil && !f.stopped {
			cp.last = now
			due, us = append(due, cp), append(us, u)
		}
	}
	if !f.stopped {
		f.arm(now) // every call left is due after now
	}
	f.mu.Unlock()
	for i, cp := range due {
		if err := f.tr.event(progressEvent(cp.call, *us[i])); err != nil {
			return err
		}
	}
	return nil
}

// closeCall drops the reports that come after the call's executor
// returned; the update still pending is shown by take.
func (f *progressFeed) closeCall(id string) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if cp := f.calls[id]; cp != nil {
		cp.closed = true
	} else {
		f.calls[id] = &callProgress{closed: true}
	}
}

// take ends the call's progress and returns the update not shown yet, if
// any. The turn calls it just before tool.finished.
func (f *progressFeed) take(id string) *toolhost.ProgressUpdate {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	cp := f.calls[id]
	if cp == nil {
		f.calls[id] = &callProgress{closed: true}
		return nil
	}
	u := cp.pending
	cp.pending, cp.closed, cp.due = nil, true, time.Time{}
	return u
}

// stop ends the feed with the round: its timer, if not fired yet, never
// will, and reports still coming are dropped.
func (f *progressFeed) stop() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
	if f.t != nil {
		f.t.Stop()
	}
}

// showLastProgress shows the update of p's call not shown yet, so that the
// client's last tool.progress says how far the call really got before its
// tool.finished.
func (tr *turnRun) showLastProgress(p *pending) error {
	if u := tr.progress.take(p.call.ID); u != nil {
		return tr.event(progressEvent(p.call, *u))
	}
	return nil
}

// progressEvent is the tool.progress event of call at u.
func progressEvent(call toolhost.Call, u toolhost.ProgressUpdate) Event {
	ev := Event{Event: "tool.progress", CallID: call.ID, Name: call.Name, Round: call.Round, Progress: &u.Progress, Message: u.Message}
	if u.Total > 0 {
		ev.Total = &u.Total
	}
	return ev
}

var _ toolhost.ProgressReporter = (*calls)(nil)
