package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/toolstream/toolstream/loop"
)

// readErr turns an error reading the upstream's event stream into one that
// says what went wrong. The reader reports a read that failed in the
// middle of a line as a cut, and an event over the cap as
// bufio.ErrTooLong; left as they are, the round's
// timeout would read as a broken connection and the cap as a network
// fault. The client's message is built from these by [toAPIError]; the
// log keeps the error chain.
func (s *sseStream) readErr(err error) error {
	switch {
	case s.idle.fired.Load():
		return &loop.StreamError{Upstream: s.upstream,
			Reason: fmt.Sprintf("sent nothing for %s (upstreams[].idle_timeout); the round was given up", seconds(s.idle.d))}
	case errors.Is(s.ctx.Err(), context.DeadlineExceeded):
		// The round's own timeout (a client that left is the caller's
		// context, checked by loop).
		return &loop.StreamError{Upstream: s.upstream, Reason: "reading the upstream stream", Err: context.DeadlineExceeded}
	case errors.Is(err, bufio.ErrTooLong):
		return &loop.StreamError{Upstream: s.upstream,
			Reason: fmt.Sprintf("sent an event over %d bytes, the most toolstream reads (twice loop.max_block_bytes, at least 2MiB)", s.maxEvent)}
	case errors.Is(err, errSSECut):
		if s.idle.err != nil {
			return fmt.Errorf("%w (%w)", s.idle.err, err)
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
