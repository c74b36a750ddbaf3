package proxy

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolstream/toolstream/proxy/internal/framing"
	"github.com/toolstream/toolstream/proxy/internal/handback"
	"github.com/toolstream/toolstream/proxy/internal/rawio"
)

// A streamed turn leaves its handler at its first event: it takes the
// connection from net/http (Hijack), writes the response's head itself,
// and the handler returns. What net/http holds for a connection while
// its handler runs — 10 KiB of buffers, the request and response state,
// the handler's goroutine — is then freed for the whole life of the
// stream, most of which is spent waiting on the model. The turn goes on
// on a goroutine of its own (streamDetached), writes each event as one
// HTTP/1.1 chunk with one system call, and at the end gives the
// connection back to the server ([handback.Listener]) for the client's
// next request.
//
// Only a stream that can come back leaves: HTTP/1.1, served on
// [Listener], tracing off (its span is the handler's). Any other stays
// with net/http, as every stream did before.

// detachedTotal counts the streams that took their connection, for the
// tests that must know their stream did.
var detachedTotal atomic.Int64

// detachedConn is the connection a stream took from net/http.
type detachedConn struct {
	conn net.Conn
	// sock is conn's socket, written raw (rawio); not valid when conn is
	// none (TLS).
	sock rawio.Socket
	back *handback.Listener
	life *reqLife
	// pending is what was written and not yet sent, in chunked framing;
	// nil while nothing is (it comes from the frames pool).
	pending *[]byte
	// keep says the connection may carry another request once the answer
	// is over: the client did not ask to close it, and net/http had read
	// nothing past this request.
	keep bool

	// The watcher's state: see watch.
	mu        sync.Mutex
	ended     bool
	watchDone bool
	got       bool
	b         [1]byte
}

// takeConn hijacks w's connection for a stream: nil when w cannot give
// it (then the stream stays with net/http).
func takeConn(w http.ResponseWriter, back *handback.Listener, life *reqLife, keep bool) *detachedConn {
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil
	}
	detachedTotal.Add(1)
	d := &detachedConn{conn: conn, back: back, life: life,
		keep: keep && brw.Reader.Buffered() == 0}
	d.sock.Open(socketOf(conn))
	life.detach()
	_ = conn.SetDeadline(time.Time{})
	d.head(w.Header())
	go d.watch()
	return d
}

// head puts the response's head first in what is pending: the status
// line, the headers set so far (the key's rate-limit headers, the
// stream's own), and what net/http would add.
func (d *detachedConn) head(h http.Header) {
	h.Set("Transfer-Encoding", "chunked")
	h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	if !d.keep {
		h.Set("Connection", "close")
	}
	b := d.buf()
	*b = append(*b, "HTTP/1.1 200 OK\r\n"...)
	w := appendWriter{b}
	_ = h.Write(w) // sorted, values' line breaks made spaces, as net/http writes them
	*b = append(*b, '\r', '\n')
}

type appendWriter struct{ b *[]byte }

func (w appendWriter) Write(p []byte) (int, error) {
	*w.b = append(*w.b, p...)
	return len(p), nil
}

func (d *detachedConn) buf() *[]byte {
	if d.pending == nil {
		d.pending = frames.Get().(*[]byte)
		*d.pending = (*d.pending)[:0]
	}
	return d.pending
}

// add frames one event as one chunk.
func (d *detachedConn) add(frame []byte) {
	b := d.buf()
	*b = strconv.AppendInt(*b, int64(len(frame)), 16)
	*b = append(*b, '\r', '\n')
	*b = append(*b, frame...)
	*b = append(*b, '\r', '\n')
}

// flush sends what is pending in one write, and gives the buffer back.
func (d *detachedConn) flush() error {
	if d.pending == nil {
		return nil
	}
	var err error
	if d.sock.Valid() {
		_, err = d.sock.Write(*d.pending)
	} else {
		_, err = d.conn.Write(*d.pending)
	}
	frames.Put(d.pending)
	d.pending = nil
	if err != nil {
		// As net/http does on a failed write: the client is gone or
		// stopped reading (write_idle_timeout), and the turn ends.
		d.life.cancel(context.Canceled)
	}
	return err
}

// finish ends the answer: what is pending and the last chunk in one
// write (unless a write failed, which leaves nothing to end), then the
// connection goes back to the server, or is closed.
func (d *detachedConn) finish(writeErr error) {
	if writeErr == nil {
		*d.buf() = append(*d.buf(), "0\r\n\r\n"...)
		writeErr = d.flush()
	} else if d.pending != nil {
		frames.Put(d.pending)
		d.pending = nil
	}
	d.mu.Lock()
	d.ended = true
	d.keep = d.keep && writeErr == nil
	done, keep, got := d.watchDone, d.keep, d.got
	d.mu.Unlock()
	switch {
	case done:
		d.reuse(keep && got)
	case keep:
		// The watcher waits on: for the next request now, as long as
		// the server lets an idle connection wait, or until it closes.
		if idle := d.back.Idle(); idle > 0 {
			_ = d.conn.SetReadDeadline(time.Now().Add(idle))
		}
		d.back.Waiting(d.conn) // after: a closing listener's deadline wins
	default:
		_ = d.conn.SetReadDeadline(time.Unix(1, 0)) // the watcher returns, and closes
	}
}

// watch reads the connection for one byte while the stream runs, as
// net/http does while a handler runs: a client that leaves ends the
// turn. A byte read then is the client's next request, come early: it is
// kept, and the connection given back once the answer is over. After
// the end, the same read is the wait for the next request.
func (d *detachedConn) watch() {
	n, _ := d.conn.Read(d.b[:])
	d.mu.Lock()
	ended := d.ended
	d.watchDone, d.got = true, n == 1
	keep := d.keep
	d.mu.Unlock()
	switch {
	case ended:
		d.reuse(keep && n == 1)
	case n == 0:
		d.life.cancel(context.Canceled) // as net/http says it
	}
}

// reuse gives the connection back with the byte read from it, or closes
// it.
func (d *detachedConn) reuse(ok bool) {
	d.back.Done(d.conn)
	if ok {
		_ = d.conn.SetDeadline(time.Time{})
		if d.back.Give(handback.WithByte(d.conn, d.b[0])) {
			return
		}
	}
	_ = d.conn.Close()
}

// socketOf is the connection under c's wrappers that only read (the
// framing guard's, a given-back connection's held byte), where a write
// can go straight to the socket; any other wrapper is returned as it is,
// and rawio finds no socket in it (a TLS connection's bytes must go
// through TLS).
func socketOf(c net.Conn) net.Conn {
	for {
		switch w := c.(type) {
		case *framing.Conn:
			c = w.Conn
		case *handback.Replay:
			c = w.Conn
		default:
			return c
		}
	}
}
