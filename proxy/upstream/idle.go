package upstream

import (
	"context"
	"io"
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
type idleBody struct {
	r     io.ReadCloser
	d     time.Duration
	t     *time.Timer
	fired atomic.Bool
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

func newIdleBody(r io.ReadCloser, d time.Duration, cancel context.CancelFunc) *idleBody {
	b := &idleBody{r: r, d: d}
	if d > 0 {
		b.t = time.AfterFunc(d, func() {
			b.fired.Store(true)
			// Ending the request's context ends the Read the stream is
			// blocked in, on either transport, from here: the body's
			// Close is the reading goroutine's alone to call.
			cancel()
		})
		b.t.Stop() // started by each Read
	}
	return b
}

// Ready is the body's sse.Waiter: it reads or waits as ready does, the
// idle clock running on into the Read that follows.
func (b *idleBody) Ready(p []byte, park func()) {
	b.start()
	b.primed = true
	b.ready.Ready(p, park)
}

// start is what comes before a read: wait, and the idle clock.
func (b *idleBody) start() {
	if b.wait != nil {
		b.wait()
	}
	if b.t != nil && !b.fired.Load() {
		b.t.Reset(b.d)
	}
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
	if b.t != nil {
		b.t.Stop()
	}
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

// Close stops the timer and closes the body.
func (b *idleBody) Close() error {
	if b.t != nil {
		b.t.Stop()
	}
	return b.r.Close()
}
