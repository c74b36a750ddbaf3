// Package h1 is the HTTP/1.1 client of plain-http upstreams: it writes a
// request and reads the answer's head and body in the caller's goroutine,
// and keeps connections for the next request. proxy/upstream's transport
// table holds it to net/http's Transport, script by script.
package h1

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Transport sends the chat requests of a plain-http upstream (a local
// model server) over HTTP/1.1 connections it keeps itself, and reads each
// answer in the goroutine that asked for it. net/http's Transport keeps two
// goroutines per connection (one reading, one writing) and hands every
// answer across between them: for a proxy holding thousands of long,
// mostly idle streams that was a quarter of its memory per stream, and a
// wakeup per request (docs/operations.md#upstream-connections). Here a
// connection is a socket: the body is read into the caller's buffer (see
// bodyReader), and a context's end closes it from a timer, not from a
// goroutine waiting on it.
//
// https upstreams, and any an HTTP proxy is set for, keep net/http's
// Transport: it speaks HTTP/2 and TLS, and honours HTTPS_PROXY.
type Transport struct {
	// Dialer opens connections; its Timeout is the connect timeout.
	Dialer net.Dialer
	// HeaderTimeout bounds the wait for an answer's head once the request
	// is written; 0 waits as long as the request's context.
	HeaderTimeout time.Duration
	// IdleTimeout is how long a kept connection may wait for a request.
	IdleTimeout time.Duration
	// MaxIdle is how many connections are kept.
	MaxIdle int
	// SweepEvery is how often kept connections are checked; 0 means
	// defaultSweep.
	SweepEvery time.Duration

	mu   sync.Mutex
	idle []*pconn // most recently used last
	// gen counts CloseIdleConnections calls: a connection finished in
	// the background after one is not kept.
	gen uint64
	// finishing counts the answers being finished in the background;
	// finished is signalled (under mu) when it drops to zero. A WaitGroup
	// would not do: a finish may start while CloseIdleConnections waits.
	finishing int
	finished  sync.Cond
	// sweep, while connections are kept, closes those that expired or
	// that the server closed (see sweepIdle).
	sweep *time.Timer
}

// pconn is one kept connection.
type pconn struct {
	t *Transport
	c net.Conn
	// since is when it was last put back.
	since time.Time
}

// defaultSweep is how often kept connections are checked. Model servers
// close idle keep-alive connections themselves (uvicorn, under vLLM and
// SGLang, after 5 s); a closed one is let go within this, and one taken
// for a request is checked first.
const defaultSweep = 2 * time.Second

// sweepInterval is how often kept connections are checked: often enough
// that none outlives IdleTimeout by much.
func (t *Transport) sweepInterval() time.Duration {
	d := t.SweepEvery
	if d <= 0 {
		d = defaultSweep
	}
	if t.IdleTimeout > 0 && t.IdleTimeout < d {
		d = t.IdleTimeout
	}
	return d
}

// MaxHeaderBytes bounds an answer's head, status line and headers
// together: net/http's default, DefaultMaxHeaderBytes.
const MaxHeaderBytes = 1 << 20

const (
	// h1HeadReader reads an answer's head (a longer one in pieces); it
	// is pooled, and the body is read without it (see bodyReader).
	h1HeadReader = 1 << 10
	// h1HeadBuffer starts the buffer a request's line and headers are
	// framed in; the body is written from where it is.
	h1HeadBuffer = 512
)

var h1HeadReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, h1HeadReader) }}

var h1Heads = sync.Pool{New: func() any { b := make([]byte, 0, h1HeadBuffer); return &b }}

// appendHead appends the request line and headers of r.
func appendHead(dst []byte, r *Request) []byte {
	dst = append(dst, "POST "...)
	if r.Path == "" {
		dst = append(dst, '/')
	}
	dst = append(dst, r.Path...)
	dst = append(dst, " HTTP/1.1\r\nHost: "...)
	dst = appendHeaderValue(dst, r.Host)
	if _, ok := r.Header["User-Agent"]; !ok {
		dst = append(dst, "\r\nUser-Agent: Go-http-client/1.1"...)
	}
	dst = append(dst, "\r\nContent-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(r.Body)), 10)
	dst = append(dst, "\r\n"...)
	for k, vs := range r.Header {
		if framing[k] {
			continue
		}
		for _, v := range vs {
			dst = appendHeaderValue(dst, k)
			dst = append(dst, ": "...)
			dst = appendHeaderValue(dst, v)
			dst = append(dst, "\r\n"...)
		}
	}
	return append(dst, "\r\n"...)
}

// framing are the headers the request's framing owns: set in an
// upstream's headers they are left out, as net/http leaves them out, not
// sent twice.
var framing = map[string]bool{"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Trailer": true}

// appendHeaderValue appends v with line breaks made spaces, as net/http
// writes headers: a value cannot end the header block early.
func appendHeaderValue(dst []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		dst = append(dst, c)
	}
	return dst
}

// NotSentError is a request of which no byte reached a connection: the
// dial failed, or the first write did. Only such a request may be sent
// again; once any of it was written the server may have started on it.
type NotSentError struct{ Err error }

func (e *NotSentError) Error() string { return e.Err.Error() }
func (e *NotSentError) Unwrap() error { return e.Err }

// Request is one POST: where it goes and what it carries.
type Request struct {
	// Addr is host:port to connect to; Host is the Host header; Path is
	// the request target, escaped, with its query.
	Addr, Host, Path string
	Header           http.Header
	Body             []byte
}

// Post sends r and reads the answer's status and headers. The answer's
// body is read from the connection directly; closing it after reading it
// to the end keeps the connection for the next request.
func (t *Transport) Post(ctx context.Context, r *Request) (*http.Response, error) {
	pc, reused, err := t.conn(ctx, r.Addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &NotSentError{Err: err}
	}
	return pc.roundTrip(ctx, r, reused)
}

// conn returns a kept connection the server has not closed, or dials one.
func (t *Transport) conn(ctx context.Context, addr string) (*pconn, bool, error) {
	t.mu.Lock()
	for len(t.idle) > 0 {
		pc := t.idle[len(t.idle)-1]
		t.idle = t.idle[:len(t.idle)-1]
		if connAlive(pc.c) {
			t.mu.Unlock()
			return pc, true, nil
		}
		pc.c.Close()
	}
	t.mu.Unlock()
	c, err := t.Dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	return &pconn{t: t, c: c}, false, nil
}

// put keeps pc for the next request, or closes it when enough are kept.
func (t *Transport) put(pc *pconn) {
	t.mu.Lock()
	gen := t.gen
	t.mu.Unlock()
	t.putGen(pc, gen)
}

// putGen keeps pc unless the idle connections were closed since gen.
func (t *Transport) putGen(pc *pconn, gen uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.idle) >= t.MaxIdle || gen != t.gen {
		pc.c.Close()
		return
	}
	pc.since = time.Now()
	t.idle = append(t.idle, pc)
	if t.sweep == nil {
		t.sweep = time.AfterFunc(t.sweepInterval(), t.sweepIdle)
	}
}

// sweepIdle closes the kept connections idle longer than IdleTimeout or
// closed by the server, and runs again while any are left: a transport
// with none kept has no timer running.
func (t *Transport) sweepIdle() {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	kept := t.idle[:0]
	for _, pc := range t.idle {
		if now.Sub(pc.since) < t.IdleTimeout && connAlive(pc.c) {
			kept = append(kept, pc)
		} else {
			pc.c.Close()
		}
	}
	clear(t.idle[len(kept):])
	t.idle = kept
	if len(t.idle) > 0 {
		t.sweep.Reset(t.sweepInterval())
	} else {
		t.sweep = nil
	}
}

// WaitFinishing waits until the answers closed before their end have
// been read to it in the background, and their connections kept or
// closed.
func (t *Transport) WaitFinishing() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.finished.L = &t.mu
	for t.finishing > 0 {
		t.finished.Wait()
	}
}

func (t *Transport) finishDone() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.finishing--; t.finishing == 0 {
		t.finished.L = &t.mu
		t.finished.Broadcast()
	}
}

// CloseIdleConnections closes the kept connections, waiting for those
// being finished in the background; those in use close when their answer
// is done.
func (t *Transport) CloseIdleConnections() {
	t.mu.Lock()
	t.gen++
	t.mu.Unlock()
	t.WaitFinishing()
	t.mu.Lock()
	idle := t.idle
	t.idle = nil
	if t.sweep != nil {
		t.sweep.Stop()
		t.sweep = nil
	}
	t.mu.Unlock()
	for _, pc := range idle {
		pc.c.Close()
	}
}

// roundTrip writes r on pc and reads the answer's head. A context that
// ends closes the connection, which ends whatever read or write waits.
func (pc *pconn) roundTrip(ctx context.Context, r *Request, reused bool) (*http.Response, error) {
	if err := ctx.Err(); err != nil {
		pc.c.Close()
		return nil, err
	}
	b := &Body{pc: pc}
	b.stop = context.AfterFunc(ctx, b.Kill)

	head := h1Heads.Get().(*[]byte)
	*head = appendHead((*head)[:0], r)
	bufs := net.Buffers{*head, r.Body}
	n, err := bufs.WriteTo(pc.c) // one writev: the body is not copied
	h1Heads.Put(head)
	if err != nil {
		if err := b.fail(ctx, err); n > 0 || err == ctx.Err() {
			return nil, err
		}
		return nil, &NotSentError{Err: err}
	}

	if d := pc.t.HeaderTimeout; d > 0 {
		pc.c.SetReadDeadline(time.Now().Add(d))
	}
	br := h1HeadReaders.Get().(*bufio.Reader)
	br.Reset(pc.c)
	resp, err := http.ReadResponse(br, nil)
	for err == nil && resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
		resp, err = http.ReadResponse(br, nil) // an informational answer: the real one follows
	}
	if err == nil && br.Buffered() > 0 {
		// The first bytes of the body came with the head.
		rest, _ := br.Peek(br.Buffered())
		b.r.pending = bytes.Clone(rest)
	}
	br.Reset(nil)
	h1HeadReaders.Put(br)
	if err != nil {
		if isTimeout(err) && ctx.Err() == nil {
			err = &HeaderTimeoutError{d: pc.t.HeaderTimeout}
		}
		return nil, b.fail(ctx, err)
	}
	if pc.t.HeaderTimeout > 0 {
		pc.c.SetReadDeadline(time.Time{})
	}
	b.r.src, b.keep = pc.c, !resp.Close
	switch {
	case len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked":
		b.r.mode = bodyChunked
	case resp.ContentLength >= 0:
		b.r.mode, b.r.left, b.r.end = bodyLength, resp.ContentLength, resp.ContentLength == 0
	case !bodyAllowed(resp.StatusCode):
		b.r.mode, b.r.end = bodyLength, true
	default:
		b.r.mode, b.keep = bodyUntilClose, false
	}
	resp.Body = b
	return resp, nil
}

// bodyAllowed reports whether an answer with status code may have a body.
func bodyAllowed(code int) bool {
	return code >= 200 && code != http.StatusNoContent && code != http.StatusNotModified
}

// HeaderTimeoutError is an upstream that took longer than
// upstreams[].header_timeout to start its answer.
type HeaderTimeoutError struct{ d time.Duration }

func (e *HeaderTimeoutError) Error() string {
	return "timeout awaiting response headers (" + e.d.String() + ")"
}
func (e *HeaderTimeoutError) Timeout() bool   { return true }
func (e *HeaderTimeoutError) Temporary() bool { return true }

// Body is an answer's body on its connection.
type Body struct {
	pc   *pconn
	r    bodyReader
	keep bool
	stop func() bool
	// done is set once the body is closed; eof once it was read to its
	// end; killed once the connection was closed under it (kill).
	done, eof, killed atomic.Bool
}

func (b *Body) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.eof.Store(true)
	}
	return n, err
}

// Close ends the answer, from the goroutine that read it: a connection
// read to the end of a kept-alive answer goes back to the pool, one
// closed at an event stream's [DONE] is finished first (finish), any other
// is closed.
func (b *Body) Close() error {
	if !b.done.CompareAndSwap(false, true) {
		return nil
	}
	aborted := !b.stop() || b.killed.Load()
	switch {
	case !b.keep || aborted:
	case b.eof.Load():
		b.pc.t.put(b.pc)
		return nil
	default:
		t := b.pc.t
		t.mu.Lock()
		t.finishing++
		gen := t.gen
		t.mu.Unlock()
		go b.finish(gen)
		return nil
	}
	return b.pc.c.Close()
}

// finishWait bounds how long a body closed before its end is read on for
// its last bytes.
const finishWait = 100 * time.Millisecond

// finish reads what is left of a body closed before its end, and keeps
// the connection if that was the end. After an event stream's [DONE] what
// is left is the chunked terminator, which servers write a moment later;
// read here, off the request's goroutine, it saves the next request a new
// connection and does not hold up the client's [DONE]. A body that does not
// end soon costs the connection.
//
// It belongs to the transport: WaitFinishing waits for it, and a
// connection it finishes after CloseIdleConnections (gen changed) is
// closed, not kept.
func (b *Body) finish(gen uint64) {
	defer b.pc.t.finishDone()
	b.pc.c.SetReadDeadline(time.Now().Add(finishWait))
	var buf [256]byte
	for !b.r.end && b.r.err == nil {
		b.r.Read(buf[:])
	}
	if !b.r.end || b.r.err != nil {
		b.pc.c.Close()
		return
	}
	b.pc.c.SetReadDeadline(time.Time{})
	b.pc.t.putGen(b.pc, gen)
}

// kill closes the connection under the answer, from any goroutine —
// the request's context ending, the idle timeout: whatever read or write
// waits on it ends, and it is never kept.
func (b *Body) Kill() {
	b.killed.Store(true)
	b.pc.c.Close()
}

// fail closes the connection of a request that failed before its answer,
// and says why: the context's end, or the error itself. A request that was
// written is never sent again, whatever the error: a kept connection the
// server closed as it arrived looks the same as a server that crashed
// while running it.
func (b *Body) fail(ctx context.Context, err error) error {
	b.stop()
	b.pc.c.Close()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func isConnReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
