package h1

import (
	"context"
	"net"
	"time"

	"github.com/toolstream/toolstream/proxy/internal/aside"
	"github.com/toolstream/toolstream/proxy/internal/rawio"
)

// pconn is one connection to a server.
type pconn struct {
	t *Transport
	c net.Conn
	// addr is the host:port it was dialled to: it is kept under it, and
	// only a request to the same address takes it again.
	addr string
	// since is when it was last put back.
	since time.Time
	// head is c as the head reader sees it (see readHead).
	head headLimit
	// sock is c's socket, read raw (rawio) by bodies; looked for at the
	// first body read, and not valid when c is none (TLS, a test's pipe).
	sock   rawio.Socket
	looked bool
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

// conn returns a kept connection to addr the server has not closed, or
// dials one. One Transport serves every server of a pool, so a kept
// connection is only ever taken for its own address: a request for one
// server must not go out on a socket to another.
func (t *Transport) conn(ctx context.Context, addr string) (*pconn, error) {
	t.mu.Lock()
	for pc := t.takeLocked(addr); pc != nil; pc = t.takeLocked(addr) {
		if pc.alive() {
			t.mu.Unlock()
			return pc, nil
		}
		pc.c.Close()
	}
	t.mu.Unlock()
	dial := t.Dialer.DialContext
	if t.dial != nil {
		dial = t.dial
	}
	c, err := dialAside(ctx, dial, addr)
	if err != nil {
		return nil, err
	}
	return &pconn{t: t, c: c, addr: addr}, nil
}

// dialAside dials aside: a dial runs deeper than anything else a stream
// does (the resolver, the socket's setup). A kept connection costs
// nothing more.
func dialAside(ctx context.Context, dial func(ctx context.Context, network, addr string) (net.Conn, error), addr string) (c net.Conn, err error) {
	aside.Do(func() { c, err = dial(ctx, "tcp", addr) }) // dial returns when ctx ends
	return c, err
}

// takeLocked removes and returns the connection to addr kept last, or nil.
func (t *Transport) takeLocked(addr string) *pconn {
	pcs := t.idle[addr]
	if len(pcs) == 0 {
		return nil
	}
	pc := pcs[len(pcs)-1]
	pcs[len(pcs)-1] = nil
	if pcs = pcs[:len(pcs)-1]; len(pcs) == 0 {
		delete(t.idle, addr)
	} else {
		t.idle[addr] = pcs
	}
	return pc
}

// put keeps pc for the next request, or closes it when enough are kept.
func (t *Transport) put(pc *pconn) {
	t.mu.Lock()
	gen := t.gen
	t.mu.Unlock()
	t.putGen(pc, gen)
}

// putGen keeps pc unless the idle connections were closed since gen. A
// connection on which the server already sent more than its answer, or
// that it already closed, is closed instead: bytes nobody asked for would
// be read as the next request's answer.
func (t *Transport) putGen(pc *pconn, gen uint64) {
	if !pc.alive() {
		pc.c.Close()
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.idle[pc.addr]) >= t.MaxIdle || gen != t.gen {
		pc.c.Close()
		return
	}
	pc.since = time.Now()
	if t.idle == nil {
		t.idle = make(map[string][]*pconn)
	}
	t.idle[pc.addr] = append(t.idle[pc.addr], pc)
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
	for addr, pcs := range t.idle {
		kept := pcs[:0]
		for _, pc := range pcs {
			if now.Sub(pc.since) < t.IdleTimeout && pc.alive() {
				kept = append(kept, pc)
			} else {
				pc.c.Close()
			}
		}
		clear(pcs[len(kept):])
		if len(kept) == 0 {
			delete(t.idle, addr)
		} else {
			t.idle[addr] = kept
		}
	}
	if len(t.idle) > 0 {
		t.sweep.Reset(t.sweepInterval())
	} else {
		t.sweep = nil
	}
	if t.afterSweep != nil {
		t.afterSweep()
	}
}

// idleCount is how many connections are kept, for tests.
func (t *Transport) idleCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, pcs := range t.idle {
		n += len(pcs)
	}
	return n
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
	for _, pcs := range idle {
		for _, pc := range pcs {
			pc.c.Close()
		}
	}
}
