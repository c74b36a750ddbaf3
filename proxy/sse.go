package proxy

import (
	"bytes"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolstream/toolstream/proxy/chat"
	"github.com/toolstream/toolstream/proxy/internal/aside"
)

// sseSink writes a turn to the client as server-sent events. Nothing
// reaches the client before the first event: that is the commit point.
// Before it, the handler can still answer with an HTTP status; after it,
// errors go in-band (docs/http-api.md).
//
// It frames events itself, into a pooled buffer that goes back once the
// event is written (an open stream holds none while quiet): the frame is
// "data: " and the payload, one "data: " line per line of it, and a blank
// line. A library's message type cost two allocations and a copy per
// event on the path every token takes.
type sseSink struct {
	rc        *http.ResponseController
	w         http.ResponseWriter
	committed bool
	// bytes counts what reaches the client; nil counts nothing. written
	// is what the stream wrote so far, counted how much of it bytes has
	// been given.
	bytes            prometheus.Counter
	written, counted int64
	// writeIdle is how long one write to the client may take
	// (write_idle_timeout). It is an idle deadline pushed forward before
	// every write, not a limit on the stream: a turn may run for many
	// minutes, but a client that stops reading does not hold it forever.
	writeIdle time.Duration
	// deadlineSet is when the write deadline was last pushed forward.
	deadlineSet time.Time
	// unflushed counts the bytes written since the last flush.
	unflushed int
	// hold says events are written without a flush each (see
	// [chat.Writer]); held says some are waiting for one. err is the
	// first write error: a flush done from the stream's reader cannot
	// return it, so the next send does.
	hold, held bool
	err        error
	// headSent says a flush has written the response's head (see
	// flushAside).
	headSent bool
	// take, when set, takes the connection from net/http at the commit
	// point (detach.go); conn is then what the stream writes to.
	take func() *detachedConn
	conn *detachedConn
}

// newSSESink is the stream of a turn's answer to w. w is echo's response
// on the turn route, which its WriteHeader marks committed.
func newSSESink(w http.ResponseWriter, writeIdle time.Duration) (*sseSink, error) {
	return &sseSink{rc: http.NewResponseController(w), w: w, writeIdle: writeIdle}, nil
}

func (s *sseSink) commit() {
	if s.committed {
		return
	}
	s.committed = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer this response
	if s.take != nil {
		s.conn, s.take = s.take(), nil
		if s.conn != nil {
			// Nothing of net/http's is held from here on.
			s.w, s.rc = nil, nil
			return
		}
	}
	// Through echo's response, so that it marks itself committed.
	s.w.WriteHeader(http.StatusOK)
}

// write sends one framed event (or comment) and flushes it unless
// holding.
func (s *sseSink) write(frame []byte) error {
	if s.err != nil {
		return s.err
	}
	s.commit()
	if s.conn != nil {
		s.conn.add(frame)
		s.written += int64(len(frame))
		s.held = true
		if s.hold {
			return nil
		}
		return s.Flush()
	}
	var n int
	var err error
	switch {
	case s.unflushed+len(frame) <= heldUnsent:
		n, err = s.w.Write(frame)
	case !s.headSent:
		// This write overflows what net/http keeps back, so net/http
		// writes the response's head under it: aside, as the first
		// flush does (flushAside). Head and events wait in the
		// connection's buffer for the flush that ends the run of
		// events, one system call: a Responses stream's first events
		// (two copies of the response object) overflow it, and a flush
		// here cost a write of their own.
		s.pushDeadline()
		n, err = s.writeAside(frame)
	default:
		s.pushDeadline()
		n, err = s.w.Write(frame)
	}
	s.written += int64(n)
	s.unflushed += n
	if s.err = err; err != nil {
		return err
	}
	s.held = true
	if s.hold {
		return nil
	}
	return s.Flush()
}

// heldUnsent is how many bytes of a response net/http keeps before it
// writes any to the connection (its bufferBeforeChunkingSize): a write
// that leaves no more than that unflushed reaches no socket, and needs no
// fresh deadline. Only the write that may overflow it, and every flush,
// look at the clock — not every event of a held run.
const heldUnsent = 2048

// pushDeadline moves the write deadline forward before a write that may
// reach the client's socket. Not supported by every ResponseWriter
// (httptest's recorder); the deadline is a safeguard, not part of the
// protocol. Setting it costs a timer update, so it is set a tenth
// further out and pushed forward only once that tenth has passed: every
// write still gets at least write_idle_timeout, a stalled client at most
// a tenth more.
func (s *sseSink) pushDeadline() {
	if now := time.Now(); now.After(s.deadlineSet.Add(s.writeIdle / 10)) {
		s.deadlineSet = now
		if s.conn != nil {
			_ = s.conn.conn.SetWriteDeadline(now.Add(s.writeIdle + s.writeIdle/10))
			return
		}
		_ = s.rc.SetWriteDeadline(now.Add(s.writeIdle + s.writeIdle/10))
	}
}

// Flush writes out what is held. With nothing held it does nothing: a
// flush would commit the response, and before the first event an error
// can still be an HTTP status.
func (s *sseSink) Flush() error {
	if s.err != nil || !s.held {
		return s.err
	}
	s.held = false
	s.pushDeadline()
	s.unflushed = 0
	if s.conn != nil {
		s.err = s.conn.flush()
	} else if s.headSent {
		s.err = s.rc.Flush()
	} else {
		s.err = s.flushAside()
	}
	s.count()
	return s.err
}

// count adds what was written since the last count to the bytes
// metric.
func (s *sseSink) count() {
	if s.bytes != nil && s.written > s.counted {
		s.bytes.Add(float64(s.written - s.counted))
		s.counted = s.written
	}
}

// endConn ends a stream that took its connection (detach.go): what is
// held and the last chunk go out in one write, then the connection goes
// back or is closed.
func (s *sseSink) endConn() {
	if s.err == nil {
		s.pushDeadline()
	}
	s.held = false
	s.count()
	s.conn.finish(s.err)
}

// writeAside is the write that has net/http write the response's head
// (see write), aside as flushAside is. A function of its own: what the
// closure writes to is moved to the heap, here, not in write, on every
// event's path.
func (s *sseSink) writeAside(frame []byte) (n int, err error) {
	s.headSent = true
	aside.Do(func() { n, err = s.w.Write(frame) })
	return n, err
}

// flushAside is the stream's first flush, the one that writes the
// response's head, in net/http's 2.8 KiB frame: aside, since it comes
// from deep in the turn (under the upstream read, or an event's write).
func (s *sseSink) flushAside() (err error) {
	s.headSent = true
	aside.Do(func() { err = s.rc.Flush() })
	return err
}

// Hold turns holding on or off; off flushes what is held.
func (s *sseSink) Hold(on bool) error {
	s.hold = on
	if !on && s.held {
		return s.Flush()
	}
	return s.err
}

// Send writes one "data:" event.
func (s *sseSink) Send(chunk []byte) error {
	return s.event("data: ", chunk)
}

// Comment writes ": text".
func (s *sseSink) Comment(text string) error {
	return s.event(": ", []byte(text))
}

var frames = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// event frames payload as one event of field and writes it.
func (s *sseSink) event(field string, payload []byte) error {
	f := frames.Get().(*[]byte)
	*f = appendEvent((*f)[:0], field, payload)
	err := s.write(*f)
	frames.Put(f)
	return err
}

// WriteEvent writes one event with a name, as the Messages and Responses
// APIs send every event (messages.Writer, responses' writer); name is one of the protocol's own and
// holds no line break:
//
//	event: content_block_delta
//	data: {"type":"content_block_delta",…}
func (s *sseSink) WriteEvent(name string, payload []byte) error {
	f := frames.Get().(*[]byte)
	b := append((*f)[:0], "event: "...)
	b = append(b, name...)
	b = append(b, '\n')
	*f = appendEvent(b, "data: ", payload)
	err := s.write(*f)
	frames.Put(f)
	return err
}

// WriteFrame writes one event that is framed already: its "event:" and
// "data:" lines and the blank line after them. The Responses and Messages
// encoders frame the event of every token themselves, whose JSON they
// wrote and know to hold no line break: WriteEvent's copy into a frame
// and its search for line breaks are then spent once per token for
// nothing.
func (s *sseSink) WriteFrame(frame []byte) error {
	return s.write(frame)
}

// Done writes "data: [DONE]".
func (s *sseSink) Done() error {
	return s.write(doneFrame)
}

var doneFrame = []byte("data: [DONE]\n\n")

// fail ends a committed stream with the error body: one error event and no
// [DONE], so a cut stream never looks complete (docs/http-api.md).
func (s *sseSink) fail(body []byte) error {
	return s.Send(body)
}

// appendEvent appends payload as one SSE event whose every line starts
// with field ("data: " or ": "), then the blank line that ends it. A line
// break in the payload (LF, CR or CRLF) starts a new line of the same
// field, so a reader joins them back with "\n".
func appendEvent(dst []byte, field string, payload []byte) []byte {
	for {
		dst = append(dst, field...)
		i := lineBreak(payload)
		if i < 0 {
			dst = append(dst, payload...)
			break
		}
		dst = append(dst, payload[:i]...)
		dst = append(dst, '\n')
		if payload[i] == '\r' && i+1 < len(payload) && payload[i+1] == '\n' {
			i++
		}
		payload = payload[i+1:]
	}
	return append(dst, '\n', '\n')
}

// lineBreak is the index of the first CR or LF in b, or -1: two
// vectorised byte searches. Framing an event and reading one both look
// for line breaks in whole chunks of JSON, which has none until the end;
// bytes.IndexAny's byte-by-byte set test made that the dearest step of
// either.
func lineBreak(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	return i
}

var _ chat.Writer = (*sseSink)(nil)
