package upstream

import (
	"context"
	"io"
	"math"
	"sync/atomic"
	"time"

	"github.com/toolstream/toolstream/proxy/upstream/internal/h1"
	"github.com/toolstream/toolstream/proxy/upstream/internal/sse"
)

// idleBody closes an upstream stream that sends nothing for d: a stalled
// upstream would otherwise hold the round (and the client, fed keepalive
// comments) until the whole-round timeout. Every byte counts as life,
// comments included.
//
// The clock runs only while a Read waits for bytes. Time the proxy spends
// elsewhere (a slow client holding a write back, the upstream's bytes
// waiting in the socket meanwhile) is not the upstream's silence.
//
// A Read only counts itself in and out; a timer that ticks every
// d/idleTicks for the stream's life tells from the count whether one Read
// has waited through the ticks since, and gives up after d of them.
// Resetting and stopping a timer around every Read cost each chunk two
// updates of the runtime's timer heap (about 430 instructions, and more
// with many streams' timers in it); the count costs two atomic adds. The
// stream is given up between d and d+d/idleTicks into the silence.
type idleBody struct {
	r      io.ReadCloser
	d      time.Duration
	t      *time.Timer
	cancel context.CancelFunc
	fired  atomic.Bool
	closed atomic.Bool
	// reads counts Reads begun and ended: it is odd while one waits.
	reads atomic.Uint64
	// seen and waited are the timer's: the count at its last tick, and
	// how long the Read that was waiting then has waited since.
	seen   uint64
	waited time.Duration
	// err is the last read error other than EOF: the event reader reports
	// a read that failed in the middle of a line as a cut, and the cause
	// is needed to say what went wrong.
	err error
	// wait, when set, runs before each Read, and again after one that
	// was interrupted (see sseStream.Interrupt): the reader has used
	// every byte it had, so what was sent from them may go out now, with
	// what the round's other goroutines posted meanwhile.
	wait func()
	// ready, when set, can wait for the upstream's bytes without a
	// buffer (h1's body); primed says Ready did what a Read does first.
	ready  sse.Waiter
	primed bool
}

// idleTicks is how many times the idle clock looks during idle_timeout.
const idleTicks = 8

func newIdleBody(r io.ReadCloser, d time.Duration, cancel context.CancelFunc) *idleBody {
	b := &idleBody{r: r, d: d, cancel: cancel}
	if d > 0 {
		// Armed once b.t is set: tick re-arms it through b.t.
		b.t = time.AfterFunc(math.MaxInt64, b.tick)
		b.t.Reset(b.step())
	}
	return b
}

func (b *idleBody) step() time.Duration { return max(b.d/idleTicks, 1) }

// tick is the idle clock looking at the reads.
func (b *idleBody) tick() {
	if b.closed.Load() {
		return
	}
	if n := b.reads.Load(); n&1 == 0 || n != b.seen {
		// No Read waits, or another one does than at the last tick.
		b.seen, b.waited = n, 0
	} else if b.waited += b.step(); b.waited >= b.d {
		b.fired.Store(true)
		// Ending the request's context ends the Read the stream is
		// blocked in, on either transport, from here: the body's Close
		// is the reading goroutine's alone to call.
		b.cancel()
		return
	}
	b.t.Reset(b.step())
}

// Ready is the body's sse.Waiter: it reads or waits as ready does, the
// idle clock running on into the Read that follows.
func (b *idleBody) Ready(p []byte, park func()) {
	b.start()
	b.primed = true
	b.ready.Ready(p, park)
}

// start is what comes before a read: wait, and the Read counted in.
func (b *idleBody) start() {
	if b.wait != nil {
		b.wait()
	}
	b.reads.Add(1)
}

// Read reads from the body with the idle clock running.
func (b *idleBody) Read(p []byte) (int, error) {
	if !b.primed {
		b.start()
	}
	b.primed = false
	n, err := b.r.Read(p)
	for err == h1.ErrInterrupted && n == 0 {
		// The clock runs on: an interruption is no byte from the
		// upstream.
		b.interrupted()
		n, err = b.r.Read(p)
	}
	if err == h1.ErrInterrupted {
		b.interrupted() // with bytes: they are this Read's
		err = nil
	}
	b.reads.Add(1)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

// interrupted runs wait again after an interrupted Read.
func (b *idleBody) interrupted() {
	if b.wait != nil {
		b.wait()
	}
}

// Close stops the clock and closes the body.
func (b *idleBody) Close() error {
	if b.t != nil {
		b.closed.Store(true)
		b.t.Stop()
	}
	return b.r.Close()
}
