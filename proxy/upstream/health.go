package upstream

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// health is what is known of a server: up until two checks in a row
// failed or a connection was refused, up again after one check passed.
type health struct {
	down atomic.Bool
	// fails counts the checks failed in a row; only the checker writes it.
	fails int
}

func (h *health) up() bool { return !h.down.Load() }

// refused marks the server down at once: a refused connection is not a
// slow server but a missing one.
func (h *health) refused() { h.down.Store(true) }

// failsToDown is how many checks in a row must fail to mark a server
// down: one lost answer is not an outage.
const failsToDown = 2

// HealthCheckAgent is the User-Agent of health checks, so that a model
// server's log (and a test's record) can tell them from rounds.
const HealthCheckAgent = "toolstream-healthcheck"

// checker runs an upstream's health checks on a timer: every interval, a
// GET of the check path under each base URL, answered 2xx to pass.
type checker struct {
	c        *Client
	interval time.Duration
	path     string
	// client has keep-alives off: a check every few seconds needs no
	// kept connection, and a kept one would hold two goroutines.
	client *http.Client

	mu      sync.Mutex
	t       *time.Timer
	stopped bool
	running sync.WaitGroup
}

// Start begins the health checks: a GET of path under each server's base
// URL every interval, the first at once. A client started already, or an
// interval of 0, starts nothing. Close stops them.
func (c *Client) Start(interval time.Duration, path string) {
	if interval <= 0 || c.checks != nil {
		return
	}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: c.cfg.ConnectTimeout}).DialContext,
		DisableKeepAlives:   true,
		TLSHandshakeTimeout: c.cfg.ConnectTimeout,
	}
	k := &checker{c: c, interval: interval, path: path,
		client: &http.Client{Transport: tr, CheckRedirect: noRedirect}}
	c.checks = k
	k.mu.Lock()
	k.t = time.AfterFunc(0, k.run)
	k.mu.Unlock()
}

// Close stops the health checks and waits for one running to end, and
// closes the idle connections.
func (c *Client) Close() {
	if k := c.checks; k != nil {
		k.mu.Lock()
		k.stopped = true
		k.t.Stop()
		k.mu.Unlock()
		k.running.Wait()
	}
	c.CloseIdle()
}

// run checks every server once, then sets the timer for the next round
// unless stopped meanwhile.
func (k *checker) run() {
	k.mu.Lock()
	if k.stopped {
		k.mu.Unlock()
		return
	}
	k.running.Add(1)
	k.mu.Unlock()
	defer k.running.Done()
	var wg sync.WaitGroup
	for _, s := range k.c.servers {
		wg.Go(func() { k.check(s) })
	}
	wg.Wait()
	k.mu.Lock()
	if !k.stopped {
		k.t.Reset(k.interval)
	}
	k.mu.Unlock()
}

// check asks one server and updates what is known of it.
func (k *checker) check(s *server) {
	timeout := min(k.interval, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := k.get(ctx, s)
	wasUp := s.health.up()
	if err == nil {
		s.health.fails = 0
		s.health.down.Store(false)
	} else if s.health.fails++; s.health.fails >= failsToDown || isRefused(err) {
		s.health.down.Store(true)
	}
	if up := s.health.up(); up != wasUp {
		lvl, msg := slog.LevelWarn, "upstream server down"
		if up {
			lvl, msg = slog.LevelInfo, "upstream server up"
		}
		attrs := []slog.Attr{slog.String("upstream", k.c.cfg.Name), slog.String("server", s.base.Redacted())}
		if err != nil {
			attrs = append(attrs, slog.String("error", err.Error()))
		}
		k.c.log.LogAttrs(ctx, lvl, msg, attrs...)
	}
}

func (k *checker) get(ctx context.Context, s *server) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, joinURL(s.base, k.path).String(), nil)
	if err != nil {
		return err
	}
	k.c.SetHeaders(req.Header)
	req.Header.Set("User-Agent", HealthCheckAgent)
	resp, err := k.client.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &BadStatusError{Upstream: k.c.cfg.Name, Status: resp.StatusCode}
	}
	return nil
}

// ServerState is one server of an upstream as the health checks see it.
type ServerState struct {
	// Server is the base URL, any password redacted.
	Server string
	Up     bool
}

// Servers reports the state of each server of the pool.
func (c *Client) Servers() []ServerState {
	out := make([]ServerState, len(c.servers))
	for i, s := range c.servers {
		out[i] = ServerState{Server: s.base.Redacted(), Up: s.health.up()}
	}
	return out
}

// Healthy reports whether any server of the pool is up.
func (c *Client) Healthy() bool {
	for _, s := range c.servers {
		if s.health.up() {
			return true
		}
	}
	return false
}

func isRefused(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}
