// Package h1 is the HTTP/1.1 client of plain-http upstreams: it writes a
// request and reads the answer's head and body in the caller's goroutine,
// and keeps connections for the next request. proxy/upstream's transport
// table holds it to net/http's Transport, script by script.
package h1

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
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
	// MaxIdle is how many connections are kept for each address; 0 keeps
	// none.
	MaxIdle int
	// SweepEvery is how often kept connections are checked; 0 means
	// defaultSweep.
	SweepEvery time.Duration

	mu sync.Mutex
	// idle are the kept connections by address, most recently used last.
	idle map[string][]*pconn
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

	// dial, when set, replaces Dialer (tests: net.Pipe connections);
	// afterSweep, when set, runs after each sweep (tests wait on it).
	dial       func(ctx context.Context, network, addr string) (net.Conn, error)
	afterSweep func()
}

// h1HeadBuffer starts the buffer a request's line and headers are framed
// in; the body is written from where it is.
const h1HeadBuffer = 512

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
//
// An error is a [*NotSentError] when no byte of r was written; any other
// error came after r was written, or some of it, and r must not be sent
// again (the server may have started on it).
func (t *Transport) Post(ctx context.Context, r *Request) (*http.Response, error) {
	pc, err := t.conn(ctx, r.Addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &NotSentError{Err: err}
	}
	return pc.roundTrip(ctx, r)
}

// roundTrip writes r on pc and reads the answer's head. A context that
// ends closes the connection, which ends whatever read or write waits.
func (pc *pconn) roundTrip(ctx context.Context, r *Request) (*http.Response, error) {
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
	resp, rest, err := pc.readHead()
	if err != nil {
		if isTimeout(err) && ctx.Err() == nil {
			err = &HeaderTimeoutError{d: pc.t.HeaderTimeout}
		}
		// A malformed or oversized head leaves the connection at an
		// unknown place in the server's bytes: it is closed, and the
		// request, written, is not sent again.
		return nil, b.fail(ctx, err)
	}
	if pc.t.HeaderTimeout > 0 {
		pc.c.SetReadDeadline(time.Time{})
	}
	b.r.src, b.r.pending = connSrc{b}, rest
	b.frame(resp)
	resp.Body = b
	return resp, nil
}

// HeaderTimeoutError is an upstream that took longer than
// upstreams[].header_timeout to start its answer.
type HeaderTimeoutError struct{ d time.Duration }

func (e *HeaderTimeoutError) Error() string {
	return "timeout awaiting response headers (" + e.d.String() + ")"
}

// Timeout reports true: the error is a timeout, as net.Error has it.
func (e *HeaderTimeoutError) Timeout() bool { return true }

// Temporary reports true, as net/http's own header timeout does.
func (e *HeaderTimeoutError) Temporary() bool { return true }

// Body is an answer's body on its connection.
type Body struct {
	pc   *pconn
	r    bodyReader
	keep bool
	stop func() bool
	// done is set once the body is closed; killed once the connection
	// was closed under it (Kill).
	done, killed atomic.Bool
	// imu orders Interrupt with the reader taking it and with Close:
	// interrupted says a past read deadline is set; closed that no
	// Interrupt may set one any more.
	imu                 sync.Mutex
	interrupted, closed bool
	// readSocket is tryRead, made once for every Ready; p and park are
	// the running Ready's, parked says it called park.
	readSocket func(fd uintptr) bool
	p          []byte
	park       func()
	parked     bool
}

// Read reads the body into p, in the caller's goroutine.
func (b *Body) Read(p []byte) (int, error) { return b.r.Read(p) }

// Close ends the answer, from the goroutine that read it: a connection
// read to the exact end of a kept-alive answer goes back to the pool, one
// closed at an event stream's [DONE] is finished first (finish), any other
// is closed — so is one on which the server sent bytes past the answer.
func (b *Body) Close() error {
	if !b.done.CompareAndSwap(false, true) {
		return nil
	}
	b.endInterrupts()
	aborted := !b.stop() || b.killed.Load()
	switch {
	case !b.keep || aborted:
	case b.r.end:
		if b.r.clean() {
			b.pc.t.put(b.pc)
			return nil
		}
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
	if !b.r.clean() {
		b.pc.c.Close()
		return
	}
	b.pc.c.SetReadDeadline(time.Time{})
	b.pc.t.putGen(b.pc, gen)
}

// Kill closes the connection under the answer, from any goroutine —
// the request's context ending, the idle timeout: whatever read or write
// waits on it ends, and it is never kept. It touches nothing a Read uses
// but the socket, whose Close may run beside a Read.
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
