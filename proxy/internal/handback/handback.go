// Package handback lets a handler that took its connection from net/http
// give it back to be served again.
//
// A streamed answer that takes its connection (http.Hijacker) leaves
// behind what net/http holds for every connection while a handler runs:
// its buffers, its request and response state, the handler's goroutine.
// For a stream that waits on a model most of its life that is most of
// what the stream costs. Without a way back, such a connection could not
// carry the client's next request: [Listener] is that way back. The
// connection is served as if newly accepted, and keep-alive goes on.
package handback

import (
	"context"
	"net"
	"sync"
	"time"
)

// Listener is a listener whose Accept also returns the connections given
// back to it. Serve an http.Server on it, and set the server's
// ConnContext to [Listener.ConnContext], so that handlers can find it.
type Listener struct {
	net.Listener
	// idle bounds the wait for a given-back connection's next request:
	// the server's IdleTimeout, which net/http itself applies only
	// between the requests of a connection it kept.
	idle time.Duration

	back      chan net.Conn
	accepted  chan accepted
	closed    chan struct{}
	closeOnce sync.Once
	// closeErr is the inner listener's Close result.
	closeErr error

	// waiting are the connections whose answer is over and that wait for
	// their next request outside the server (see Waiting).
	mu      sync.Mutex
	waiting map[net.Conn]struct{}
}

type accepted struct {
	c   net.Conn
	err error
}

// New wraps ln, and starts accepting from it. idle is how long a given-back connection may wait for
// its next request (zero: no bound).
func New(ln net.Listener, idle time.Duration) *Listener {
	l := &Listener{Listener: ln, idle: idle, back: make(chan net.Conn),
		accepted: make(chan accepted), closed: make(chan struct{})}
	go l.pump()
	return l
}

// Accept returns the next connection: a new one, or one given back.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.back:
		return c, nil
	case a := <-l.accepted:
		return a.c, a.err
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// pump accepts from the inner listener, so that Accept can wait on it and
// on given-back connections at once. It stops at Close, or after an
// error that is not temporary (which Serve returns on).
func (l *Listener) pump() {
	for {
		c, err := l.Listener.Accept()
		select {
		case l.accepted <- accepted{c, err}:
		case <-l.closed:
			if c != nil {
				c.Close()
			}
			return
		}
		if err != nil && !isTemporary(err) {
			return
		}
	}
}

func isTemporary(err error) bool {
	t, ok := err.(interface{ Temporary() bool })
	return ok && t.Temporary()
}

// Close closes the inner listener; connections given back afterwards are
// refused (Give reports false).
func (l *Listener) Close() error {
	l.closeOnce.Do(func() {
		close(l.closed)
		l.closeErr = l.Listener.Close()
		l.mu.Lock()
		for c := range l.waiting {
			_ = c.SetReadDeadline(time.Unix(1, 0))
		}
		l.mu.Unlock()
	})
	return l.closeErr
}

// Give hands c back to be served as a new connection and reports whether
// it was taken; when it was not (the listener is closed), the caller
// closes c. It waits for the server's accept loop.
func (l *Listener) Give(c net.Conn) bool {
	select {
	case <-l.closed:
		return false
	default:
	}
	select {
	case l.back <- c:
		return true
	case <-l.closed:
		return false
	}
}

// Waiting notes that c waits for its next request before it is given
// back: net/http, which closes its own idle connections when the server
// shuts down, does not know c. Close ends the wait (c's read deadline
// passes); Done takes c off.
func (l *Listener) Waiting(c net.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.closed:
		_ = c.SetReadDeadline(time.Unix(1, 0))
		return
	default:
	}
	if l.waiting == nil {
		l.waiting = map[net.Conn]struct{}{}
	}
	l.waiting[c] = struct{}{}
}

// Done takes c off the connections Waiting noted.
func (l *Listener) Done(c net.Conn) {
	l.mu.Lock()
	delete(l.waiting, c)
	l.mu.Unlock()
}

// Idle is how long a given-back connection may wait for its next
// request; zero means no bound.
func (l *Listener) Idle() time.Duration { return l.idle }

type key struct{}

// ConnContext is http.Server.ConnContext: it lets the requests of the
// server's connections find l ([From]).
func (l *Listener) ConnContext(ctx context.Context, _ net.Conn) context.Context {
	return context.WithValue(ctx, key{}, l)
}

// From returns the listener ctx's connection came from, or nil.
func From(ctx context.Context) *Listener {
	l, _ := ctx.Value(key{}).(*Listener)
	return l
}

// Replay is a connection whose first byte was read already (by whoever
// watched it for the client leaving, or for its next request): Read
// returns that byte first.
type Replay struct {
	net.Conn
	b   byte
	has bool
}

// WithByte returns c with b to be read first. A connection that is a
// Replay already is reused, not wrapped again.
func WithByte(c net.Conn, b byte) net.Conn {
	if r, ok := c.(*Replay); ok {
		r.b, r.has = b, true
		return r
	}
	return &Replay{Conn: c, b: b, has: true}
}

// Read returns the held byte first, then what the connection reads.
func (r *Replay) Read(p []byte) (int, error) {
	if r.has && len(p) > 0 {
		p[0], r.has = r.b, false
		return 1, nil
	}
	return r.Conn.Read(p)
}

// NetConn is the wrapped connection (as tls.Conn names it), for code that
// looks for the connection it accepted.
func (r *Replay) NetConn() net.Conn { return r.Conn }
