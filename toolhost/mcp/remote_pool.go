package mcp

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"maps"
	neturl "net/url"
	"slices"
	"sync"
	"time"

	"github.com/toolstream/toolstream/toolhost"
)

// Connections to request-named servers are kept per URL and credentials,
// so that a conversation does not connect and list the tools again every
// round or request: each lives until it has been idle for PoolOptions.Idle,
// and at most PoolOptions.Max idle ones are kept (the least recently used
// goes first). A connection a turn holds is never closed under it.

// Pool defaults when PoolOptions leaves them zero.
const (
	DefaultPoolIdle = 5 * time.Minute
	DefaultPoolMax  = 64
)

// ErrPoolClosed is Get after Close: the proxy is shutting down.
var ErrPoolClosed = errors.New("mcp: the connection pool is closed")

// PoolOptions configure a [Pool].
type PoolOptions struct {
	// Guard says where a connection may go; required.
	Guard *toolhost.RemoteGuard
	// Idle is how long an unused connection is kept; Max bounds the
	// connections kept. Zero means DefaultPoolIdle and DefaultPoolMax.
	Idle time.Duration
	Max  int
	// Log receives connections made and closed; nil discards. It never
	// gets a URL's query or a credential.
	Log *slog.Logger
	// Now is the clock; nil uses time.Now. Tests pin it.
	Now func() time.Time
}

// Pool keeps connections to request-named MCP servers. It is safe for
// concurrent use.
type Pool struct {
	opts PoolOptions

	mu      sync.Mutex
	entries map[string]*list.Element // by key, holding *poolEntry
	lru     *list.List               // front: used most recently
	closed  bool
	wg      sync.WaitGroup // closes running in the background
	stop    chan struct{}  // ends the sweeper
	swept   chan struct{}  // closed when the sweeper has ended
}

type poolEntry struct {
	key      string
	remote   *Remote
	users    int
	lastUsed time.Time
}

// NewPool returns an empty pool. Its sweeper starts with the first
// connection kept; [Pool.Close] ends it.
func NewPool(opts PoolOptions) *Pool {
	if opts.Idle <= 0 {
		opts.Idle = DefaultPoolIdle
	}
	if opts.Max <= 0 {
		opts.Max = DefaultPoolMax
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Pool{opts: opts, entries: map[string]*list.Element{}, lru: list.New()}
}

// Lease is a connection a turn uses; Release gives it back once the turn
// is over.
type Lease struct {
	*Remote
	p *Pool
	e *poolEntry
}

// Release gives the connection back to the pool. It may be called more
// than once.
func (l *Lease) Release() {
	if l == nil || l.p == nil {
		return
	}
	l.p.release(l.e)
	l.p = nil
}

// Get returns a connection to url with headers: the one kept for the
// same URL and credentials when it is still alive, else a new one,
// connected and its tools listed. A failure is a *[RemoteError].
func (p *Pool) Get(ctx context.Context, url string, headers map[string]string) (*Lease, error) {
	key := poolKey(url, headers)
	l, ok, err := p.take(key)
	if ok || err != nil {
		return l, err
	}
	r, err := dialRemote(ctx, url, headers, p.opts.Guard)
	if err != nil {
		return nil, err
	}
	p.opts.Log.LogAttrs(ctx, slog.LevelDebug, "request-named MCP server connected", slog.String("host", hostOf(url)), slog.Int("tools", len(r.tools)))
	return p.keep(key, r)
}

// hostOf is url's host, for the log: no path, query or user info.
func hostOf(raw string) string {
	u, err := neturl.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

// poolKey identifies a URL and its credentials by a digest: the pool
// holds no credential as a key.
func poolKey(url string, headers map[string]string) string {
	h := sha256.New()
	h.Write([]byte(url))
	for _, k := range slices.Sorted(maps.Keys(headers)) {
		h.Write([]byte{0})
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write([]byte(headers[k]))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// take leases the kept connection of key, dropping it when it died.
func (p *Pool) take(key string) (*Lease, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, false, ErrPoolClosed
	}
	el, ok := p.entries[key]
	if !ok {
		return nil, false, nil
	}
	e := el.Value.(*poolEntry)
	if !e.remote.alive() {
		p.drop(el)
		return nil, false, nil
	}
	e.users++
	e.lastUsed = p.opts.Now()
	p.lru.MoveToFront(el)
	return &Lease{Remote: e.remote, p: p, e: e}, true, nil
}

// keep files a new connection under key and leases it.
func (p *Pool) keep(key string, r *Remote) (*Lease, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		// Shutting down since the dial began: nobody waits for this one.
		p.mu.Unlock()
		r.close()
		p.mu.Lock()
		return nil, ErrPoolClosed
	}
	if el, ok := p.entries[key]; ok {
		// Another request connected meanwhile: the older connection
		// leaves once its users are done.
		p.drop(el)
	}
	e := &poolEntry{key: key, remote: r, users: 1, lastUsed: p.opts.Now()}
	p.entries[key] = p.lru.PushFront(e)
	p.trim()
	if p.stop == nil {
		p.stop, p.swept = make(chan struct{}), make(chan struct{})
		go p.sweep()
	}
	return &Lease{Remote: r, p: p, e: e}, nil
}

// release ends one use of e; a dropped entry closes with its last user.
func (p *Pool) release(e *poolEntry) {
	p.mu.Lock()
	e.users--
	e.lastUsed = p.opts.Now()
	dropped := p.entries[e.key] == nil || p.entries[e.key].Value != e
	switch {
	case e.users == 0 && p.closed:
		// Close has returned (or is waiting for the sweeper): close
		// here, in the turn that held it.
		p.mu.Unlock()
		e.remote.close()
		return
	case e.users == 0 && dropped:
		p.closeLater(e.remote)
	default:
		p.trim()
	}
	p.mu.Unlock()
}

// trim closes the least recently used idle connections past Max. Held
// by p.mu.
func (p *Pool) trim() {
	for el := p.lru.Back(); el != nil && p.lru.Len() > p.opts.Max; {
		prev := el.Prev()
		if el.Value.(*poolEntry).users == 0 {
			p.drop(el)
		}
		el = prev
	}
}

// drop takes el out of the pool, closing its connection now when no
// turn uses it (else its last release does). Held by p.mu.
func (p *Pool) drop(el *list.Element) {
	e := el.Value.(*poolEntry)
	p.lru.Remove(el)
	delete(p.entries, e.key)
	if e.users == 0 {
		p.closeLater(e.remote)
	}
}

// closeLater closes r in the background: closing waits for the server,
// and nobody should wait for that under p.mu. Close waits for it.
func (p *Pool) closeLater(r *Remote) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		r.close()
	}()
}

// sweep closes connections idle longer than Idle, checking at a fraction
// of it, until Close.
func (p *Pool) sweep() {
	defer close(p.swept)
	t := time.NewTicker(max(p.opts.Idle/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.expire()
		}
	}
}

// expire drops the idle connections whose time is up.
func (p *Pool) expire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.opts.Now()
	for el := p.lru.Back(); el != nil; {
		prev := el.Prev()
		e := el.Value.(*poolEntry)
		if e.users == 0 && (now.Sub(e.lastUsed) >= p.opts.Idle || !e.remote.alive()) {
			p.drop(el)
		}
		el = prev
	}
}

// Len is how many connections the pool keeps.
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lru.Len()
}

// Close closes every idle connection and those in use as their turns
// release them, ends the sweeper and waits for it all. Get after Close
// fails with ErrPoolClosed.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	for el := p.lru.Front(); el != nil; {
		next := el.Next()
		p.drop(el)
		el = next
	}
	stop, swept := p.stop, p.swept
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-swept
	}
	p.wg.Wait()
	return nil
}
