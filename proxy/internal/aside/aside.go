// Package aside runs deep work on a goroutine of its own while its caller
// waits, so that the caller's stack stays small.
//
// A stream's handler starts with the 8 KiB stack every goroutine starts
// with, and keeps whatever it grows to for as long as the stream is open
// (the runtime halves a stack only when under a quarter of it is in use,
// and a stream waiting on its upstream sits deeper than that). A few
// things a stream does once run far deeper than its per-chunk path: net's
// dial, net/http writing a response's head (one 2.8 KiB frame), a
// storage's read-modify-write. Reached from deep in a turn, each would
// double the stack to 16 KiB, for the stream and for every later stream on
// its keep-alive connection. Run on a goroutine of their own, they grow
// and free that goroutine's stack instead (BenchmarkIdleStreamMemory, in
// proxy).
//
// The goroutines are kept a moment after their work, for the next: a
// goroutine starts with a 2 KiB stack, and work this deep grew it once or
// twice on every call, each time copying the stack and adjusting every
// frame on it — more than the rest of a stored response's write
// (BenchmarkDo's Deep). A kept goroutine has its stack grown already;
// one idle for [idleFor] ends, so a quiet process holds none.
package aside

import (
	"sync"
	"time"
)

// idleFor is how long a goroutine waits for more work before it ends:
// under load the next call comes within microseconds; a quiet process
// (and a test's leak check) sees them gone soon after.
const idleFor = 50 * time.Millisecond

// call is one Do: its work, and where the worker says it is done (with
// what f panicked with, if it did).
type call struct {
	f    func()
	done chan any
}

// calls are Do's calls, reused: each has its channel made once.
var calls = sync.Pool{New: func() any { return &call{done: make(chan any, 1)} }}

// work hands a call to a waiting goroutine. Unbuffered: a send succeeds
// only into the hands of one that waits, and Do starts one otherwise.
var work = make(chan *call)

// Do runs f on a goroutine of its own and returns when f has. Nothing runs
// on two goroutines at once: the caller only waits. A panic in f is the
// caller's again.
func Do(f func()) {
	c := calls.Get().(*call)
	c.f = f
	select {
	case work <- c:
	default:
		go serve(c)
	}
	p := <-c.done
	c.f = nil
	calls.Put(c)
	if p != nil {
		panic(p)
	}
}

// serve runs c, then the calls handed to it, until none came for
// idleFor.
func serve(c *call) {
	var idle *time.Timer
	for {
		c.run()
		if idle == nil {
			idle = time.NewTimer(idleFor)
		} else {
			idle.Reset(idleFor) // since Go 1.23 a Reset timer sends no stale tick
		}
		select {
		case c = <-work:
		case <-idle.C:
			return
		}
	}
}

// run runs c's work and tells its caller, with f's panic if it panicked.
func (c *call) run() {
	defer func() { c.done <- recover() }()
	c.f()
}
