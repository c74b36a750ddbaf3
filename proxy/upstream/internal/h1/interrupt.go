package h1

import (
	"errors"
	"time"
)

// ErrInterrupted is a Read of a body that [Body.Interrupt] cut short. It
// is no failure: nothing of the body was lost, and the next Read goes on
// where this one stopped.
var ErrInterrupted = errors.New("h1: read interrupted")

// aLongTimeAgo is a read deadline already past: set on a connection it
// ends the Read waiting on it at once (net/http's abortPendingRead does
// the same to a server connection's background read).
var aLongTimeAgo = time.Unix(1, 0)

// Interrupt makes the Read waiting on the body's connection return
// [ErrInterrupted] now, from any goroutine — or, when none waits, the
// next Read that would wait. The round's reader, the only goroutine that
// writes to the client, is then free to write (a keepalive, an event that
// came meanwhile) and reads on. After Close it does nothing: the
// connection may already carry another request.
func (b *Body) Interrupt() {
	b.imu.Lock()
	defer b.imu.Unlock()
	if b.closed || b.interrupted {
		return
	}
	b.interrupted = true
	b.pc.c.SetReadDeadline(aLongTimeAgo)
}

// takeInterrupt reports whether a read that timed out was interrupted,
// and if so clears the deadline for the next one. Under imu with
// Interrupt: an interrupt that comes after this leaves its deadline for
// the next read, none is lost.
func (b *Body) takeInterrupt() bool {
	b.imu.Lock()
	defer b.imu.Unlock()
	if !b.interrupted {
		return false
	}
	b.interrupted = false
	b.pc.c.SetReadDeadline(time.Time{})
	return true
}

// endInterrupts is Close's: no Interrupt touches the connection after it,
// and one still pending leaves no past deadline on a connection that is
// kept or finished.
func (b *Body) endInterrupts() {
	b.imu.Lock()
	defer b.imu.Unlock()
	b.closed = true
	if b.interrupted {
		b.interrupted = false
		b.pc.c.SetReadDeadline(time.Time{})
	}
}

// connSrc is where a body reads its connection: a read the past deadline
// of Interrupt ended is [ErrInterrupted], which the body reader passes on
// without keeping it as the body's error.
type connSrc struct{ b *Body }

func (s connSrc) Read(p []byte) (int, error) {
	n, err := s.b.pc.read(p)
	if err != nil && isTimeout(err) && s.b.takeInterrupt() {
		return n, ErrInterrupted
	}
	return n, err
}
