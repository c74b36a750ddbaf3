package upstream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
	"time"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/upstream/internal/sse"
)

// sseStream is one round's response body read as server-sent events.
type sseStream struct {
	body     *idleBody
	upstream string
	// ctx is the round's, bounded by upstreams[].timeout; cancel ends it
	// and the idle clock's context.
	ctx      context.Context
	cancel   func()
	maxEvent int
	// intr interrupts a read of body; nil for a stream of StreamOf.
	intr interrupter
}

func (s *sseStream) Events() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		r := sse.NewReader(s.body, s.maxEvent)
		defer r.Release() // the loop keeps no data past the sequence
		if s.body.ready != nil {
			r.WaitWith(s.body)
		}
		for {
			data, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				yield("", s.readErr(err))
				return
			}
			if !yield(data, nil) {
				return
			}
		}
	}
}

// OnWait implements loop.Waiter: wait runs before each read of the body,
// which the reader does only once it has parsed every event it had, and
// again after each interrupted read.
func (s *sseStream) OnWait(wait func()) { s.body.wait = wait }

// Interrupt implements loop.Waiter: the read waiting for the upstream, or
// the next one, stops for a moment — on h1 by a read deadline in the past,
// on net/http by leaving the read's goroutine — and wait runs on the
// goroutine reading Events before it reads on. Nothing the upstream sent
// is lost, and the idle timeout counts on. Safe from any goroutine, after
// Close too; a stream of StreamOf, never waiting long, ignores it.
func (s *sseStream) Interrupt() {
	if s.intr != nil {
		s.intr.Interrupt()
	}
}

// Close closes the body, then ends the round's context: the other way
// round the context's end would close the connection under the body, which
// could otherwise be kept for the next request.
func (s *sseStream) Close() error {
	err := s.body.Close()
	s.cancel()
	return err
}

// readErr turns an error reading the upstream's event stream into one that
// says what went wrong. The reader reports a read that failed in the
// middle of a line as a cut, and an event over the cap as
// bufio.ErrTooLong; left as they are, the round's timeout would read as a
// broken connection and the cap as a network fault. proxy builds the
// client's message from these; the log keeps the error chain.
func (s *sseStream) readErr(err error) error {
	switch {
	case s.body.fired.Load():
		return &loop.StreamError{Upstream: s.upstream,
			Reason: fmt.Sprintf("sent nothing for %s (upstreams[].idle_timeout); the round was given up", seconds(s.body.d))}
	case errors.Is(s.ctx.Err(), context.DeadlineExceeded):
		// The round's own timeout (a client that left is the caller's
		// context, checked by loop).
		return &loop.StreamError{Upstream: s.upstream, Reason: "reading the upstream stream", Err: context.DeadlineExceeded}
	case errors.Is(err, bufio.ErrTooLong):
		return &loop.StreamError{Upstream: s.upstream,
			Reason: fmt.Sprintf("sent an event over %d bytes, the most toolstream reads (twice loop.max_block_bytes, at least 2MiB)", s.maxEvent)}
	case errors.Is(err, sse.ErrCut):
		if s.body.err != nil {
			return fmt.Errorf("%w (%w)", s.body.err, err)
		}
		// The body ended cleanly in the middle of an event.
		return fmt.Errorf("%w (%w)", io.ErrUnexpectedEOF, err)
	}
	return err
}

// seconds writes d the way the config does: "120s", "0.15s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

// StreamOf reads body as a round's event stream, with no idle timeout:
// a stream that did not come from a server of this package (a recorded
// one, a benchmark's).
func StreamOf(body io.ReadCloser, upstream string, maxEvent int) loop.Stream {
	return &sseStream{body: newIdleBody(body, 0, nil), upstream: upstream, ctx: context.Background(), cancel: func() {}, maxEvent: maxEvent}
}

var _ loop.Waiter = (*sseStream)(nil)
