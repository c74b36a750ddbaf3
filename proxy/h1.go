package proxy

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// h1Transport sends the chat requests of a plain-http upstream (a local
// model server) over HTTP/1.1 connections it keeps itself, and reads each
// answer in the goroutine that asked for it. net/http's Transport keeps two
// goroutines per connection (one reading, one writing) and hands every
// answer across between them: for a proxy holding thousands of long,
// mostly idle streams that was a quarter of its memory per stream, and a
// wakeup per request (docs/operations.md#upstream-connections). Here a
// connection is a socket and a small read buffer; a context's end closes
// it from a timer, not from a goroutine waiting on it.
//
// https upstreams, and any an HTTP proxy is set for, keep net/http's
// Transport: it speaks HTTP/2 and TLS, and honours HTTPS_PROXY.
type h1Transport struct {
	dialer        net.Dialer
	headerTimeout time.Duration
	idleTimeout   time.Duration
	maxIdle       int

	mu   sync.Mutex
	idle []*h1Conn // most recently used last
}

// h1Conn is one kept connection.
type h1Conn struct {
	t  *h1Transport
	c  net.Conn
	br *bufio.Reader
	// expire closes the connection once it has been idle idleTimeout.
	expire *time.Timer
}

const (
	// h1ReadBuffer is the read buffer of a connection, held for the whole
	// stream: one read takes in the events a busy upstream sent together,
	// and bigger ones bypass it.
	h1ReadBuffer = 2 << 10
	// h1WriteBuffer frames a request's line and headers; a body larger
	// than it is written straight to the socket.
	h1WriteBuffer = 1 << 10
)

var h1Writers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, h1WriteBuffer) }}

// errStaleConn is a kept connection the server had closed before our
// request reached it: the request is sent again on a new one.
var errStaleConn = errors.New("kept connection closed by the upstream")

// RoundTrip sends req and reads the answer's status and headers. The
// answer's body is read from this connection directly; closing it after
// reading it to the end keeps the connection for the next request.
func (t *h1Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		pc, reused, err := t.conn(req.Context(), req.URL.Host)
		if err != nil {
			return nil, err
		}
		resp, err := pc.roundTrip(req, reused)
		if errors.Is(err, errStaleConn) && attempt == 0 && req.GetBody != nil {
			body, gerr := req.GetBody()
			if gerr != nil {
				return nil, err
			}
			req.Body = body
			continue
		}
		return resp, err
	}
}

// conn returns a kept connection, or dials one.
func (t *h1Transport) conn(ctx context.Context, addr string) (*h1Conn, bool, error) {
	t.mu.Lock()
	for len(t.idle) > 0 {
		pc := t.idle[len(t.idle)-1]
		t.idle = t.idle[:len(t.idle)-1]
		if pc.expire.Stop() {
			t.mu.Unlock()
			return pc, true, nil
		}
		// Its timer fired and is closing it.
	}
	t.mu.Unlock()
	c, err := t.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	return &h1Conn{t: t, c: c, br: bufio.NewReaderSize(c, h1ReadBuffer)}, false, nil
}

// put keeps pc for the next request, or closes it when enough are kept.
func (t *h1Transport) put(pc *h1Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.idle) >= t.maxIdle {
		pc.c.Close()
		return
	}
	if pc.expire == nil {
		pc.expire = time.AfterFunc(t.idleTimeout, pc.expired)
	} else {
		pc.expire.Reset(t.idleTimeout)
	}
	t.idle = append(t.idle, pc)
}

// expired drops pc from the idle list and closes it.
func (pc *h1Conn) expired() {
	t := pc.t
	t.mu.Lock()
	for i, c := range t.idle {
		if c == pc {
			t.idle = append(t.idle[:i], t.idle[i+1:]...)
			break
		}
	}
	t.mu.Unlock()
	pc.c.Close()
}

// CloseIdleConnections closes the kept connections; those in use close
// when their answer is done.
func (t *h1Transport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = nil
	t.mu.Unlock()
	for _, pc := range idle {
		pc.expire.Stop()
		pc.c.Close()
	}
}

// roundTrip writes req on pc and reads the answer's head. A context that
// ends closes the connection, which ends whatever read or write waits.
func (pc *h1Conn) roundTrip(req *http.Request, reused bool) (*http.Response, error) {
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		pc.c.Close()
		return nil, err
	}
	b := &h1Body{pc: pc}
	b.stop = context.AfterFunc(ctx, b.abort)

	bw := h1Writers.Get().(*bufio.Writer)
	bw.Reset(pc.c)
	err := req.Write(bw)
	if err == nil {
		err = bw.Flush()
	}
	bw.Reset(nil)
	h1Writers.Put(bw)
	if err != nil {
		return nil, b.fail(ctx, err, reused)
	}

	if d := pc.t.headerTimeout; d > 0 {
		pc.c.SetReadDeadline(time.Now().Add(d))
	}
	resp, err := http.ReadResponse(pc.br, req)
	for err == nil && resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
		resp, err = http.ReadResponse(pc.br, req) // an informational answer: the real one follows
	}
	if err != nil {
		if isTimeout(err) && ctx.Err() == nil {
			err = &headerTimeoutError{d: pc.t.headerTimeout}
		}
		return nil, b.fail(ctx, err, reused)
	}
	if pc.t.headerTimeout > 0 {
		pc.c.SetReadDeadline(time.Time{})
	}
	b.body, b.keep = resp.Body, !resp.Close
	resp.Body = b
	return resp, nil
}

// headerTimeoutError is an upstream that took longer than
// upstreams[].header_timeout to start its answer.
type headerTimeoutError struct{ d time.Duration }

func (e *headerTimeoutError) Error() string {
	return "timeout awaiting response headers (" + e.d.String() + ")"
}
func (e *headerTimeoutError) Timeout() bool   { return true }
func (e *headerTimeoutError) Temporary() bool { return true }

// h1Body is an answer's body on its connection.
type h1Body struct {
	pc   *h1Conn
	body io.ReadCloser
	keep bool
	stop func() bool
	// done is set once the body is closed or aborted; eof once it was
	// read to its end.
	done, eof atomic.Bool
}

func (b *h1Body) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if err == io.EOF {
		b.eof.Store(true)
	}
	return n, err
}

// Close ends the answer: a connection read to the end of a kept-alive
// answer goes back to the pool, any other is closed. Safe to call from
// another goroutine while Read waits (the idle timeout does).
func (b *h1Body) Close() error {
	if !b.done.CompareAndSwap(false, true) {
		return nil
	}
	aborted := !b.stop()
	if b.eof.Load() && b.keep && !aborted {
		b.pc.t.put(b.pc)
		return nil
	}
	return b.pc.c.Close()
}

// abort runs when the request's context ends: closing the connection
// ends the read or write that waits on it.
func (b *h1Body) abort() { b.pc.c.Close() }

// fail closes the connection of a request that failed before its answer,
// and says why: the context's end, a kept connection the server had
// closed (sent again), or the error itself.
func (b *h1Body) fail(ctx context.Context, err error, reused bool) error {
	b.stop()
	b.pc.c.Close()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if reused && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || isConnReset(err)) {
		return errStaleConn
	}
	return err
}

func isConnReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
