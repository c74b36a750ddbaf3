// Package framing finds HTTP/1 requests whose framing two servers could
// read differently — the shapes of request smuggling — in the bytes of a
// connection, before net/http parses them.
//
// net/http accepts such requests and forgets what made them ambiguous:
// with both Content-Length and Transfer-Encoding: chunked it deletes
// Content-Length and reads the chunks; it joins a folded header line
// (obs-fold) to the line before it; it takes a bare LF for CRLF. A
// server in front of toolstream that reads the same bytes the other way
// sends the rest of the body as the next request on a shared connection.
// RFC 9112 §6.1 and §11.2 ask a server to refuse or at least close such a
// connection; a handler cannot tell, so [Listener] watches the bytes and
// the handler asks [Suspect].
package framing

import (
	"context"
	"net"
	"sync/atomic"
)

// Listener wraps ln so that every connection it accepts is watched. The
// server must also set http.Server.ConnContext to [ConnContext].
func Listener(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &Conn{Conn: c, s: scanner{state: stHead}}, nil
}

// Conn is a connection whose request heads are read as they pass.
type Conn struct {
	net.Conn
	// s is touched only by Read: net/http reads a connection from one
	// goroutine at a time.
	s scanner
	// why is set once a head was ambiguous; the handler reads it.
	why atomic.Pointer[string]
}

// Read reads from the connection and scans what it read.
func (c *Conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.why.Load() == nil {
		if why := c.s.feed(p[:n]); why != "" {
			c.why.Store(&why)
		}
	}
	return n, err
}

type connKey struct{}

// ConnContext is http.Server.ConnContext: it gives the requests of a
// watched connection a way to reach it.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	for {
		if fc, ok := c.(*Conn); ok {
			return context.WithValue(ctx, connKey{}, fc)
		}
		// A connection given back after a stream comes wrapped.
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return ctx
		}
		c = u.NetConn()
	}
}

// Suspect reports why the request of ctx must be refused and its
// connection closed: a request head on its connection was ambiguous. It
// is sticky: once one head was, every later request on the connection is
// refused too, since what follows cannot be trusted to be a request. ""
// means nothing was found (or the connection is not watched).
func Suspect(ctx context.Context) string {
	c, _ := ctx.Value(connKey{}).(*Conn)
	if c == nil {
		return ""
	}
	if why := c.why.Load(); why != nil {
		return *why
	}
	return ""
}
