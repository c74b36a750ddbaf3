// Package upstream is toolstream's client of model servers: one [Client]
// per configured upstream, which picks a server of its pool, sends a
// round's request, decides when a request may be sent again, and reads
// the answer as an event stream. It implements loop.Upstream.
//
// Plain-http servers are spoken to by internal/h1, which keeps no
// goroutines per connection; https servers and those behind an HTTP proxy
// by net/http. Events are read by internal/sse. proxy keeps the routes,
// the client's keys and how an error looks to a client; this package only
// says what went wrong, in its error types.
package upstream

import (
	"context"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/upstream/internal/h1"
	"github.com/toolstream/toolstream/proxy/upstream/internal/sse"
)

// chatPath is where chat requests go, under a base URL.
const chatPath = "/chat/completions"

// MaxErrorBody bounds the error body read from an upstream.
const MaxErrorBody = 64 << 10

// Options are what a Client takes besides its configuration. The zero
// value is usable: no TTFB metric, a discarding log, the default event cap.
type Options struct {
	// MaxEvent bounds one SSE event read from a stream; 0 means 2MiB.
	MaxEvent int
	// Log receives retries and failures; nil discards them.
	Log *slog.Logger
	// KeyHint says where the upstream's key is configured, for the error
	// a 401 or 403 becomes (see [AuthError]).
	KeyHint string
	// TTFB observes the time to the first byte of each answer; nil
	// observes nothing.
	TTFB prometheus.Observer
}

// Client is one configured upstream: its servers, its connections and
// the rules for talking to it.
type Client struct {
	cfg     config.Upstream
	servers []*server
	// next counts picks, for round_robin and least_busy's ties.
	next atomic.Uint64
	// roundRobin is balance: round_robin; least_busy otherwise.
	roundRobin bool
	// checks runs the health checks; nil until Start.
	checks *checker
	// client carries what h1 does not: https, proxied servers, GETs.
	client *http.Client
	// h1 carries the chat requests of plain-http servers, whatever their
	// address: its kept connections are keyed by it.
	h1       *h1.Transport
	log      *slog.Logger
	patterns []string
	aliases  map[string]string
	maxEvent int
	keyHint  string
	ttfb     prometheus.Observer

	// retryBase is the first backoff; sleep waits (tests record it).
	retryBase time.Duration
	sleep     func(ctx context.Context, d time.Duration) error
}

// server is one base URL of the pool.
type server struct {
	base *url.URL
	// addr is base's host:port; useH1 says requests go over h1.
	addr  string
	useH1 bool
	// chatPath is the request target of a chat request, query included.
	chatPath string
	// busy counts the rounds in flight on it, for least_busy.
	busy atomic.Int64
	// health is what the checks and failed connections said of it.
	health health
}

// New builds the client of upstream cfg. It opens nothing: connections
// are made by the first requests.
func New(cfg config.Upstream, o Options) (*Client, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.MaxEvent <= 0 {
		o.MaxEvent = 2 << 20
	}
	tr := &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   cfg.ConnectTimeout,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   64, // many concurrent streams to one host; the default of 2 churns connections
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   cfg.ConnectTimeout,
		ResponseHeaderTimeout: cfg.HeaderTimeout,
		ExpectContinueTimeout: time.Second,
		// A request is written once and its connection then only reads a
		// long stream: a 4KiB write buffer per connection held for the
		// whole stream is memory for nothing. Larger bodies bypass it.
		WriteBufferSize: 1 << 10,
		// 1 MiB, net/http's DefaultMaxHeaderBytes (its Transport alone
		// would allow 10 MiB): both transports refuse the same heads, and
		// a head larger than this is an error, not an allocation.
		MaxResponseHeaderBytes: h1.MaxHeaderBytes,
	}
	c := &Client{
		cfg: cfg,
		// No Client.Timeout: it would cut long streams. The round's
		// context carries upstreams[].timeout instead.
		client: &http.Client{Transport: tr, CheckRedirect: noRedirect},
		h1: &h1.Transport{
			Dialer:        net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second},
			HeaderTimeout: cfg.HeaderTimeout,
			IdleTimeout:   tr.IdleConnTimeout,
			MaxIdle:       tr.MaxIdleConnsPerHost,
		},
		log:       o.Log,
		maxEvent:  o.MaxEvent,
		keyHint:   o.KeyHint,
		ttfb:      o.TTFB,
		retryBase: 250 * time.Millisecond,
		sleep:     sleepCtx,
	}
	c.patterns, c.aliases = preparePatterns(cfg.Models)
	c.roundRobin = cfg.Balance == config.BalanceRoundRobin
	for _, raw := range cfg.Servers() {
		base, err := url.Parse(strings.TrimRight(raw, "/"))
		if err != nil {
			return nil, fmt.Errorf("upstream %s: base_url: %w", cfg.Name, err)
		}
		if base.User != nil {
			// config refuses it; a Client built by hand must too, as the
			// two transports would treat it differently.
			return nil, fmt.Errorf("upstream %s: base_url has user info; set api_key or headers instead", cfg.Name)
		}
		c.servers = append(c.servers, &server{base: base, addr: hostPort(base), useH1: useH1(base),
			chatPath: joinURL(base, chatPath).RequestURI()})
	}
	if len(c.servers) == 0 {
		return nil, fmt.Errorf("upstream %s: no base_url", cfg.Name)
	}
	return c, nil
}

// noRedirect hands a redirect back as the answer: a model server that
// redirects a POST is misconfigured, and following it would send the
// body again.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Name is the upstream's configured name.
func (c *Client) Name() string { return c.cfg.Name }

// Config is the configuration the client was built from.
func (c *Client) Config() *config.Upstream { return &c.cfg }

// MaxEvent is the cap on one event the client was built with.
func (c *Client) MaxEvent() int { return c.maxEvent }

// Base is the base URL of a server of the pool, a healthy one when there
// is one, for a request this package does not send itself (pass-through).
func (c *Client) Base() *url.URL {
	return c.pick(make([]bool, len(c.servers))).base
}

// Transport carries requests this package does not send itself, to any
// server of the pool: net/http's, with the upstream's timeouts.
func (c *Client) Transport() http.RoundTripper { return c.client.Transport }

// SetSleep replaces how the client waits between attempts; tests record
// the waits instead of sleeping them.
func (c *Client) SetSleep(sleep func(ctx context.Context, d time.Duration) error) { c.sleep = sleep }

// useH1 says whether chat requests to base go over h1: plain http with no
// HTTP proxy set for it.
func useH1(base *url.URL) bool {
	if base.Scheme != "http" {
		return false
	}
	p, err := http.ProxyFromEnvironment(&http.Request{URL: base})
	return err == nil && p == nil
}

// hostPort is base's host and port, the port "80" when base has none.
func hostPort(base *url.URL) string {
	port := base.Port()
	if port == "" {
		port = "80"
	}
	return net.JoinHostPort(base.Hostname(), port)
}

// CloseIdle closes the client's idle connections and waits for those
// being finished in the background.
func (c *Client) CloseIdle() {
	c.client.CloseIdleConnections()
	c.h1.CloseIdleConnections()
}

// joinURL is path rel under base, with base's query.
func joinURL(base *url.URL, rel string) *url.URL {
	u := *base
	u.Path = base.Path + rel
	if base.RawPath != "" {
		u.RawPath = base.RawPath + rel
	}
	return &u
}

// Open implements loop.Upstream: one streaming round, bounded by the
// upstream's timeout. Only a 200 with an event stream is a stream.
func (c *Client) Open(ctx context.Context, body []byte) (loop.Stream, error) {
	ctx, stop := context.WithTimeout(ctx, c.cfg.Timeout)
	resp, err := c.post(ctx, chatPath, body, "text/event-stream")
	if err != nil {
		stop()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer stop()
		return nil, c.errorFrom(resp, chatPath)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		resp.Body.Close()
		stop()
		return nil, &loop.StreamError{Upstream: c.cfg.Name,
			Reason: fmt.Sprintf("answered %q instead of an event stream (does it support \"stream\": true?)", mt)}
	}
	// The idle timeout ends the round's context too: the stream tells it
	// from the round's timeout by the idle body's fired flag.
	rb, intr := interruptible(resp.Body, stop)
	ib := newIdleBody(rb, c.cfg.IdleTimeout, stop)
	ib.ready, _ = intr.(sse.Waiter) // h1's body
	return &sseStream{body: ib, upstream: c.cfg.Name, ctx: ctx, cancel: stop, maxEvent: c.maxEvent, intr: intr}, nil
}

// PostJSON sends a non-streaming chat request. It returns the answer only
// when it is a 200; any other is an error.
func (c *Client) PostJSON(ctx context.Context, body []byte) (*http.Response, error) {
	resp, err := c.post(ctx, chatPath, body, "application/json")
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, c.errorFrom(resp, chatPath)
	}
	return resp, nil
}

// ReadErr is the error a failed read of an answer's body becomes: the
// round's timeout, the client leaving, or the upstream failing.
func (c *Client) ReadErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return c.ctxErr(ctx)
	}
	return &Failure{Upstream: c.cfg.Name, Err: err}
}

var _ loop.Upstream = (*Client)(nil)
