package proxy

import (
	"net/http"
	"time"
	"unsafe"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/tmaxmax/go-sse"

	"github.com/toolstream/toolstream/loop"
)

// sseSink writes a turn to the client as server-sent events with go-sse.
// Nothing reaches the client before the first Send: that is the commit
// point. Before it, the handler can still answer with an HTTP status; after
// it, errors go in-band (docs/http-api.md).
type sseSink struct {
	sess      *sse.Session
	rc        *http.ResponseController
	res       *echo.Response
	committed bool
	// bytes counts what reaches the client; nil counts nothing. counted
	// is how much of res.Size it has been given.
	bytes   prometheus.Counter
	counted int64
	// writeIdle is how long one write to the client may take
	// (write_idle_timeout). It is an idle deadline pushed forward before
	// every write, not a limit on the stream: a turn may run for many
	// minutes, but a client that stops reading does not hold it forever.
	writeIdle time.Duration
	// hold says events are written without a flush each (see
	// [loop.Batcher]); held says some are waiting for one. err is the
	// first write error: a flush done from the stream's reader cannot
	// return it, so the next send does.
	hold, held bool
	err        error
}

func newSSESink(c echo.Context, writeIdle time.Duration) (*sseSink, error) {
	sess, err := sse.Upgrade(c.Response(), c.Request())
	if err != nil {
		return nil, err
	}
	return &sseSink{sess: sess, rc: http.NewResponseController(c.Response()), res: c.Response(), writeIdle: writeIdle}, nil
}

func (s *sseSink) commit() {
	if s.committed {
		return
	}
	s.committed = true
	h := s.res.Header()
	// go-sse sets only Content-Type.
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer this response
	h.Set("Content-Type", "text/event-stream")
	// Through echo, so that it marks the response committed: go-sse's own
	// first flush goes around echo and would leave echo to write the
	// header a second time.
	s.res.WriteHeader(http.StatusOK)
}

func (s *sseSink) send(m *sse.Message) error {
	if s.err != nil {
		return s.err
	}
	s.commit()
	// Not supported by every ResponseWriter (httptest's recorder); the
	// deadline is a safeguard, not part of the protocol.
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.writeIdle))
	if s.err = s.sess.Send(m); s.err != nil {
		return s.err
	}
	s.held = true
	if s.hold {
		return nil
	}
	return s.Flush()
}

// Flush writes out what is held. With nothing held it does nothing: a
// flush would commit the response, and before the first event an error
// can still be an HTTP status.
func (s *sseSink) Flush() error {
	if s.err != nil || !s.held {
		return s.err
	}
	s.held = false
	s.err = s.sess.Flush()
	if s.bytes != nil && s.res.Size > s.counted {
		s.bytes.Add(float64(s.res.Size - s.counted))
		s.counted = s.res.Size
	}
	return s.err
}

// Hold turns holding on or off; off flushes what is held.
func (s *sseSink) Hold(on bool) error {
	s.hold = on
	if !on && s.held {
		return s.Flush()
	}
	return s.err
}

// Send writes one "data:" event and flushes it.
func (s *sseSink) Send(chunk []byte) error {
	var m sse.Message
	// The message is written before Send returns, so viewing the chunk as
	// a string without copying is safe.
	m.AppendData(unsafe.String(unsafe.SliceData(chunk), len(chunk)))
	return s.send(&m)
}

// Comment writes ": text".
func (s *sseSink) Comment(text string) error {
	var m sse.Message
	m.AppendComment(text)
	return s.send(&m)
}

// Done writes "data: [DONE]".
func (s *sseSink) Done() error {
	var m sse.Message
	m.AppendData("[DONE]")
	return s.send(&m)
}

// fail ends a committed stream with the error body: one error event and no
// [DONE], so a cut stream never looks complete (docs/http-api.md).
func (s *sseSink) fail(body []byte) error {
	var m sse.Message
	m.AppendData(string(body))
	return s.send(&m)
}

var _ loop.Batcher = (*sseSink)(nil)
