package main

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// roundTrips measures a tool round trip inside a stream: from the event
// that closes a tool-call block, as the scripted upstream writes it, to
// the webhook request of that call arriving at the scripted tool. Both
// ends are in this process and read the same clock.
//
// Each answer with a call names its call apart ("title": "bench-17"), so
// that a webhook request is set against the close of its own stream's
// block, whichever order 64 concurrent streams take. Both stamps are
// taken on the side that makes the figure larger: the close before the
// upstream's write of it, the arrival once the tool's server has read the
// request's head and handed it to its handler.
type roundTrips struct {
	seq atomic.Int64

	mu     sync.Mutex
	closed map[int64]time.Time // call number → its block's close written
	took   []time.Duration
	lost   int // webhook requests whose close was not seen
}

// closeEvent is the event of a scripted answer that closes its tool-call
// block, split where each answer's call number goes.
type closeEvent struct{ head, tail []byte }

// callMark is where the call number goes in a call's arguments: after
// "bench" in {"title": "bench"}, JSON-quoted inside the event's content.
var callMark = []byte(`bench\"`)

// splitClose splits the event that closes the block at its call mark;
// ok is false when ev has none.
func splitClose(ev []byte) (c closeEvent, ok bool) {
	i := bytes.Index(ev, callMark)
	if i < 0 {
		return closeEvent{}, false
	}
	i += len("bench")
	return closeEvent{head: ev[:i], tail: ev[i:]}, true
}

// next renders the closing event with a fresh call number and stamps its
// close: the caller writes it right after.
func (r *roundTrips) next(c closeEvent) []byte {
	n := r.seq.Add(1)
	ev := make([]byte, 0, len(c.head)+len(c.tail)+21)
	ev = append(ev, c.head...)
	ev = append(ev, '-')
	ev = strconv.AppendInt(ev, n, 10)
	ev = append(ev, c.tail...)
	now := time.Now()
	r.mu.Lock()
	if r.closed == nil {
		r.closed = map[int64]time.Time{}
	}
	r.closed[n] = now
	r.mu.Unlock()
	return ev
}

// arrived sets a webhook request that came in at `at` against the close
// of its call's block.
func (r *roundTrips) arrived(body []byte, at time.Time) {
	n, ok := callNumber(body)
	r.mu.Lock()
	defer r.mu.Unlock()
	closed, seen := r.closed[n]
	if !ok || !seen {
		r.lost++
		return
	}
	delete(r.closed, n)
	r.took = append(r.took, at.Sub(closed))
}

// callNumber reads the number after "bench-" in a webhook request's body.
func callNumber(body []byte) (int64, bool) {
	_, rest, ok := bytes.Cut(body, []byte("bench-"))
	if !ok {
		return 0, false
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	n, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	return n, err == nil
}

// take returns the round trips measured since the last take, and how
// many webhook requests could not be set against a close, and starts
// afresh.
func (r *roundTrips) take() (took []time.Duration, lost int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	took, lost = r.took, r.lost
	r.took, r.lost, r.closed = nil, 0, nil
	return took, lost
}

// roundTripFigures are the median and 99th percentile of a run's round
// trips, and how many webhook requests were not set against a close.
func roundTripFigures(took []time.Duration, lost int) (p50, p99 time.Duration, _ int) {
	return percentile(took, 0.5), percentile(took, 0.99), lost
}

// roundTripLog is the round trips of one repeat, for compare's log; ""
// when the target made no calls.
func (f figures) roundTripLog() string {
	if f.toolRTP50 == 0 && f.toolRTLost == 0 {
		return ""
	}
	s := fmt.Sprintf(" · tool round trip p50 %s p99 %s", us(float64(f.toolRTP50.Microseconds())), us(float64(f.toolRTP99.Microseconds())))
	if f.toolRTLost > 0 {
		s += fmt.Sprintf(" (%d webhook requests not matched)", f.toolRTLost)
	}
	return s
}

// us writes a figure in microseconds; 0 is a target without the figure.
func us(v float64) string {
	if v == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f µs", v)
}
