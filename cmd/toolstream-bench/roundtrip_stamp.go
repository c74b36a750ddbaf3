package main

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// A webhook request's arrival is stamped by the kernel where it can be
// (roundtrip_stamp_linux.go): the moment its first bytes reached the
// socket, before this process, busy with the load it generates, got to
// read them. Elsewhere, and for a connection the kernel does not stamp,
// it is the moment the handler starts.

// stampListener hands out connections that remember when the bytes of
// the request now being read arrived.
type stampListener struct{ net.Listener }

// newStampListener stamps the requests that come to ln.
func newStampListener(ln net.Listener) stampListener {
	stampOn(ln)
	return stampListener{ln}
}

func (l stampListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return newStampConn(c), nil
}

// arrivals is what a stamped connection knows of its requests: the
// kernel's stamp of the oldest bytes no request has claimed yet. One
// request at a time comes on a connection (the proxy's webhook client
// does not pipeline), so the first bytes read after a request claimed
// its stamp are the next request's.
type arrivals struct {
	mu    sync.Mutex
	first time.Time
}

func (a *arrivals) saw(at time.Time) {
	a.mu.Lock()
	if a.first.IsZero() {
		a.first = at
	}
	a.mu.Unlock()
}

func (a *arrivals) claim() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	at := a.first
	a.first = time.Time{}
	return at
}

type arrivalsKey struct{}

// stampContext is the upstream server's ConnContext: a request's handler
// finds its connection's arrivals there.
func stampContext(ctx context.Context, c net.Conn) context.Context {
	if s, ok := c.(interface{ arrivals() *arrivals }); ok {
		return context.WithValue(ctx, arrivalsKey{}, s.arrivals())
	}
	return ctx
}

// arrivedAt is when r's first bytes arrived: the kernel's stamp, or now.
// It is asked once r was read whole, so that the stamps of its later
// bytes go with it and not to the next request.
func arrivedAt(r *http.Request) time.Time {
	now := time.Now()
	if a, ok := r.Context().Value(arrivalsKey{}).(*arrivals); ok {
		if at := a.claim(); !at.IsZero() && !at.After(now) {
			return at
		}
	}
	return now
}
