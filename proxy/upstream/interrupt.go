package upstream

import (
	"io"

	"github.com/toolstream/toolstream/proxy/upstream/internal/h1"
)

// interrupter cuts a wait for the upstream short; see [sseStream.Interrupt].
type interrupter interface{ Interrupt() }

// interruptible finds what interrupts the reads of a round's body: h1's
// own body under post's wrappers, its connection's read deadline set in
// the past; or else (net/http's body, which has no deadline to set) a
// reader goroutine put over the whole, cancel ending a read it still
// waits for at Close.
func interruptible(body io.ReadCloser, cancel func()) (io.ReadCloser, interrupter) {
	for r := body; ; {
		switch b := r.(type) {
		case *release:
			r = b.ReadCloser
		case *firstByte:
			r = b.ReadCloser
		case *h1.Body:
			return body, b
		default:
			rb := &readerBody{ReadCloser: body, cancel: cancel, res: make(chan readResult, 1), interrupt: make(chan struct{}, 1)}
			return rb, rb
		}
	}
}

// readerBody reads a body in a goroutine of its own, so that the round's
// reader can stop waiting for it: net/http's response body cannot be
// interrupted, and must not be closed beside a Read. One goroutine runs
// per Read that waits; an interrupted Read leaves it running, and the
// next Read, which must pass the same buffer (idleBody's does), takes its
// result.
type readerBody struct {
	io.ReadCloser
	cancel    func()
	res       chan readResult
	interrupt chan struct{}
	// reading says a read's goroutine has not delivered its result yet.
	reading bool
}

type readResult struct {
	n   int
	err error
}

func (r *readerBody) Read(p []byte) (int, error) {
	if !r.reading {
		r.reading = true
		go func() {
			n, err := r.ReadCloser.Read(p)
			r.res <- readResult{n, err}
		}()
	}
	select {
	case res := <-r.res:
		r.reading = false
		return res.n, res.err
	case <-r.interrupt:
		return 0, h1.ErrInterrupted
	}
}

// Interrupt makes the Read that waits, or the next one, return
// h1.ErrInterrupted; from any goroutine, at any time.
func (r *readerBody) Interrupt() {
	select {
	case r.interrupt <- struct{}{}:
	default: // one already pending
	}
}

// Close ends a read still waiting by ending the round's context (the
// body is never closed beside its Read), waits for it, and closes the
// body.
func (r *readerBody) Close() error {
	if r.reading {
		r.cancel()
		<-r.res
		r.reading = false
	}
	return r.ReadCloser.Close()
}
