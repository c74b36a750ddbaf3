package proxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/loop/jsonread"
)

// bodyReader reads a request body under two deadlines: idle, the longest
// wait for its next bytes (read_idle_timeout), and end, when the whole body
// must be in (read_body_timeout). They are deadlines on the connection,
// set through http.ResponseController and pushed forward as bytes arrive,
// so a stalled body costs no goroutine and no timer of ours (Caddy's
// idle deadlines, for reads).
//
// Its failures are [bodyError]s, so that a stall is a 408 and a malformed
// body (bad chunked framing, a body cut short) a 400, not a 500 with Go's
// text or, on pass-through, a 502 blaming the upstream.
type bodyReader struct {
	r     io.ReadCloser
	rc    *http.ResponseController
	idle  time.Duration
	total time.Duration
	end   time.Time
	// pushed is when the deadline was last pushed forward; noDeadline
	// says the ResponseWriter cannot set one (httptest's recorder).
	pushed     time.Time
	noDeadline bool
	// eof and failed are read by other goroutines: the handler's, when
	// the body is read by a Transport's write loop (pass-through).
	eof    atomic.Bool
	failed atomic.Pointer[bodyError]
}

func newBodyReader(r io.ReadCloser, rc *http.ResponseController, idle, total time.Duration) *bodyReader {
	return &bodyReader{r: r, rc: rc, idle: idle, total: total, end: time.Now().Add(total)}
}

// Read reads the body, pushing the read deadline forward first.
func (b *bodyReader) Read(p []byte) (int, error) {
	if err := b.failed.Load(); err != nil {
		return 0, err
	}
	if b.eof.Load() {
		// net/http cleared the deadline when the body ended, to watch
		// the connection for the client leaving; one set now would cut
		// the request's context mid-stream.
		return b.r.Read(p)
	}
	b.push()
	n, err := b.r.Read(p)
	switch {
	case err == nil:
		return n, nil
	case err == io.EOF:
		b.eof.Store(true)
		return n, err
	}
	return n, b.fail(err)
}

// Close closes the body.
func (b *bodyReader) Close() error { return b.r.Close() }

// push moves the read deadline to idle from now, never past end. Setting
// it costs a timer update, so, as the SSE writer does for writes, it is
// set a tenth further out and pushed again only once that tenth has
// passed: every read still gets read_idle_timeout, a stalled body at most
// a tenth more.
func (b *bodyReader) push() {
	if b.noDeadline {
		return
	}
	now := time.Now()
	if !b.pushed.IsZero() && now.Before(b.pushed.Add(b.idle/10)) {
		return
	}
	b.pushed = now
	d := now.Add(b.idle + b.idle/10)
	if d.After(b.end) {
		d = b.end
	}
	if err := b.rc.SetReadDeadline(d); err != nil {
		b.noDeadline = true
	}
}

// fail turns a read error into the error the client is answered with.
// The body's size limit is left as it is (413).
func (b *bodyReader) fail(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return err
	}
	be := &bodyError{err: err}
	var ne net.Error
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		be.key, be.limit = "read_idle_timeout", b.idle
		if !time.Now().Before(b.end) {
			be.key, be.limit = "read_body_timeout", b.total
		}
	}
	b.failed.CompareAndSwap(nil, be)
	return b.failed.Load()
}

// sawEOF reports whether the whole body was read.
func (b *bodyReader) sawEOF() bool { return b.eof.Load() }

// failure is the body's read failure, nil if there was none.
func (b *bodyReader) failure() *bodyError { return b.failed.Load() }

// bodyError is a request body that could not be read: one that stalled
// (key names the timeout, 408) or a malformed one (400).
type bodyError struct {
	// key is the setting that timed out, "read_idle_timeout" or
	// "read_body_timeout"; empty for a malformed body.
	key   string
	limit time.Duration
	// err is net/http's error, for the log only: its text
	// ("invalid byte in chunk length") means nothing to an SDK.
	err error
}

func (e *bodyError) Error() string {
	switch e.key {
	case "read_idle_timeout":
		return fmt.Sprintf("the request body stopped arriving: no bytes for %s (read_idle_timeout)", e.limit)
	case "read_body_timeout":
		return fmt.Sprintf("the request body took longer than %s to arrive (read_body_timeout)", e.limit)
	}
	return "the request body could not be read: its chunked framing is malformed, or it ended before its length"
}

func (e *bodyError) Unwrap() error { return e.err }

// readJSON is how every route reads a JSON body, pass-through included:
// whole (bounded by limitBody), then checked as a whole by jsonread.Body
// — one JSON object, each top-level key once, and, for a turn (budgeted),
// at most the values max_request_bytes buys (jsonread.Budget). A body
// that fails is a 400 naming the problem, or a 413 past the budget,
// before anything is built from it.
//
// Pass-through bodies have no budget: they are sent on as bytes, nothing
// is built from their values, and embeddings clients (LangChain's
// default) send token ids, one value per few bytes.
func (s *Server) readJSON(c echo.Context, budgeted bool) ([]byte, jsonread.Object, error) {
	r := c.Request()
	body, err := readAll(r.Body, r.ContentLength)
	if err != nil {
		return nil, nil, err
	}
	budget := 0
	if budgeted {
		budget = jsonread.Budget(int64(s.stateOf(c).cfg.MaxRequestBytes))
	}
	top, err := jsonread.Body(body, budget)
	if err != nil {
		return nil, nil, err
	}
	return body, top, nil
}

// readAll reads r to its end. A body that declares its length is read
// into a buffer doubled as bytes arrive and never past that length, so
// the last buffer is the body's size: io.ReadAll's growth allocated more
// than twice a 10MiB body. Not allocated at the declared length at once:
// a client that declares 10MiB and stalls costs what it sent.
func readAll(r io.Reader, size int64) ([]byte, error) {
	if size < 0 {
		return io.ReadAll(r)
	}
	limit := int(size) + 1 // +1: the last read, which sees the end
	b := make([]byte, 0, min(limit, 512))
	for {
		if len(b) == cap(b) {
			grown := make([]byte, len(b), max(min(2*cap(b), limit), cap(b)+512))
			copy(grown, b)
			b = grown
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		switch {
		case err == io.EOF:
			return b, nil
		case err != nil:
			return b, err
		}
	}
}
