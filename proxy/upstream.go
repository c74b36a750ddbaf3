package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
)

const (
	// maxRetries bounds retries of one upstream request; each happens
	// before any byte of its response was read, so nothing reaches the
	// client twice.
	maxRetries = 2
	// maxRetryAfter is the longest Retry-After honoured by waiting; a
	// longer one is relayed to the client, whose SDK can wait itself.
	maxRetryAfter = 20 * time.Second
	// maxErrorBody bounds the error body read from an upstream.
	maxErrorBody = 64 << 10
)

// upstream is one configured model server: its pooled HTTP client and the
// rules for talking to it. It implements [loop.Upstream].
type upstream struct {
	cfg    config.Upstream
	base   *url.URL
	client *http.Client
	// h1, when set, carries the chat requests (see [h1Transport]) to
	// addr, base's host:port.
	h1   *h1Transport
	addr string
	log  *slog.Logger
	// patterns are cfg.Models' patterns prepared for [globMatch]; aliases
	// maps its alias names to the models they stand for.
	patterns []string
	aliases  map[string]string
	// maxEvent bounds one SSE event read from the stream.
	maxEvent int
	// keyHint says where the upstream's key is configured, for the error
	// a 401 or 403 becomes (see [keyHint]).
	keyHint string
	// mask hides secrets in the error bodies it relays; nil masks nothing.
	mask *masker
	// ttfb observes the time to the first byte of each answer; nil
	// observes nothing.
	ttfb prometheus.Observer

	// retryBase is the first backoff; sleep waits (tests record it).
	retryBase time.Duration
	sleep     func(ctx context.Context, d time.Duration) error
}

func newUpstream(cfg config.Upstream, maxEvent int, log *slog.Logger) (*upstream, error) {
	base, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("upstream %s: base_url: %w", cfg.Name, err)
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
	}
	patterns, aliases := preparePatterns(cfg.Models)
	var h1 *h1Transport
	if useH1(base) {
		h1 = &h1Transport{
			dialer:        net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second},
			headerTimeout: cfg.HeaderTimeout,
			idleTimeout:   tr.IdleConnTimeout,
			maxIdle:       tr.MaxIdleConnsPerHost,
		}
	}
	return &upstream{
		cfg:  cfg,
		base: base,
		// No Client.Timeout: it would cut long streams. The round's
		// context carries upstreams[].timeout instead.
		client:    &http.Client{Transport: tr},
		h1:        h1,
		addr:      hostPort(base),
		log:       log,
		patterns:  patterns,
		aliases:   aliases,
		maxEvent:  maxEvent,
		retryBase: 250 * time.Millisecond,
		sleep:     sleepCtx,
	}, nil
}

// useH1 says whether chat requests to base go over [h1Transport]: plain
// http with no HTTP proxy set for it.
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

// closeIdle closes the upstream's idle connections.
func (u *upstream) closeIdle() {
	u.client.CloseIdleConnections()
	if u.h1 != nil {
		u.h1.CloseIdleConnections()
	}
}

// url returns the upstream URL for a path relative to its base_url.
func (u *upstream) url(rel string) string {
	return u.base.String() + rel
}

// Open implements [loop.Upstream]: one streaming round, bounded by the
// upstream's timeout.
func (u *upstream) Open(ctx context.Context, body []byte) (loop.Stream, error) {
	ctx, cancel := context.WithTimeout(ctx, u.cfg.Timeout)
	resp, err := u.post(ctx, "/chat/completions", body, "text/event-stream")
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer cancel()
		return nil, u.errorFrom(resp, "/chat/completions")
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		resp.Body.Close()
		cancel()
		return nil, &loop.StreamError{Upstream: u.cfg.Name,
			Reason: fmt.Sprintf("answered %q instead of an event stream (does it support \"stream\": true?)", mt)}
	}
	ib := newIdleBody(resp.Body, u.cfg.IdleTimeout)
	return &sseStream{body: ib, idle: ib, upstream: u.cfg.Name, ctx: ctx, cancel: cancel, maxEvent: u.maxEvent}, nil
}

// post sends body to the upstream, retrying connect errors, 429 and
// 502/503/504 at most maxRetries times with jittered backoff (or the
// upstream's Retry-After). It returns the first response it does not retry,
// whatever its status.
func (u *upstream) post(ctx context.Context, rel string, body []byte, accept string) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		h := make(http.Header, 4+len(u.cfg.Headers))
		u.setHeaders(h)
		injectTrace(ctx, h)
		h.Set("Content-Type", "application/json")
		h.Set("Accept", accept)
		// Setting it turns off Go's transparent gzip: a compressing upstream
		// would hold SSE bytes back in its compressor blocks.
		h.Set("Accept-Encoding", "identity")

		sent := time.Now()
		resp, err := u.send(ctx, rel, h, body)
		if err != nil {
			if ctx.Err() != nil {
				return nil, u.ctxErr(ctx)
			}
			if attempt < maxRetries && !isTimeout(err) {
				u.log.LogAttrs(ctx, slog.LevelDebug, "upstream retry", slog.String("upstream", u.cfg.Name), slog.Int("attempt", attempt+1), slog.String("error", err.Error()))
				if err := u.sleep(ctx, u.backoff(attempt)); err != nil {
					return nil, u.ctxErr(ctx)
				}
				continue
			}
			return nil, &upstreamFailure{upstream: u.cfg.Name, err: err}
		}
		if attempt < maxRetries && retryableStatus(resp.StatusCode) {
			wait, ok := retryAfter(resp.Header, time.Now())
			if !ok {
				wait = u.backoff(attempt)
			}
			if wait <= maxRetryAfter {
				io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
				resp.Body.Close()
				u.log.LogAttrs(ctx, slog.LevelDebug, "upstream retry", slog.String("upstream", u.cfg.Name), slog.Int("attempt", attempt+1), slog.Int("status", resp.StatusCode))
				if err := u.sleep(ctx, wait); err != nil {
					return nil, u.ctxErr(ctx)
				}
				continue
			}
		}
		if u.ttfb != nil && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
			resp.Body = &firstByte{ReadCloser: resp.Body, start: sent, obs: u.ttfb}
		}
		return resp, nil
	}
}

// send posts body to rel once: over the upstream's own connections when
// it has them (a chat request follows no redirects, and http.Client's
// bookkeeping for them costs a header copy and a kilobyte of every
// stream's stack), over net/http otherwise.
func (u *upstream) send(ctx context.Context, rel string, h http.Header, body []byte) (*http.Response, error) {
	if u.h1 != nil {
		return u.h1.post(ctx, &h1Request{addr: u.addr, host: u.base.Host, path: u.base.EscapedPath() + rel, header: h, body: body})
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.url(rel), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = h
	return u.client.Do(req)
}

// setHeaders adds the upstream's own key and headers. The client's key is
// never forwarded (docs/http-api.md).
func (u *upstream) setHeaders(h http.Header) {
	for k, v := range u.cfg.Headers {
		h.Set(k, v)
	}
	if k := u.cfg.APIKey.Value(); k != "" {
		h.Set("Authorization", "Bearer "+k)
	}
}

// ctxErr reports why ctx ended: the round's own timeout is an upstream
// failure (504); a cancelled parent is the client leaving.
func (u *upstream) ctxErr(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &upstreamFailure{upstream: u.cfg.Name, err: context.DeadlineExceeded}
	}
	return context.Cause(ctx)
}

// errorFrom reads a non-2xx answer to a request for rel into an
// UpstreamError, with what the proxy can add to it (see [upstream.explain]),
// and closes it.
func (u *upstream) errorFrom(resp *http.Response, rel string) error {
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	h := http.Header{}
	for k, vs := range resp.Header {
		if k == "Retry-After" || strings.HasPrefix(k, "X-Ratelimit-") {
			h[k] = vs
		}
	}
	return u.explain(&loop.UpstreamError{Upstream: u.cfg.Name, Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: b, Header: h}, rel)
}

// explain turns the upstream errors that are the proxy's configuration problem
// rather than the client's into errors saying so: a 401 or 403 (the upstream
// refused toolstream's own key, docs/http-api.md), and a 404 from an upstream
// whose base_url has no version path (a base_url missing its "/v1" is the usual
// cause). Other errors are returned as they are.
func (u *upstream) explain(ue *loop.UpstreamError, rel string) error {
	switch {
	case ue.Status == http.StatusUnauthorized || ue.Status == http.StatusForbidden:
		return &upstreamAuthError{ue: ue, keySet: u.cfg.APIKey.Value() != "", keyHint: u.keyHint}
	case ue.Status == http.StatusNotFound && !hasVersionPath(u.base.Path):
		return &upstreamPathError{ue: ue, path: rel, base: u.base.Redacted()}
	}
	return ue
}

// hasVersionPath reports whether a base_url path has a segment like "v1"
// or "v1beta": "/v1", "/api/v1", "/openai/v1" and Gemini's
// "/v1beta/openai" have one; "" and "/api" do not.
func hasVersionPath(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if len(seg) >= 2 && seg[0] == 'v' && seg[1] >= '0' && seg[1] <= '9' {
			return true
		}
	}
	return false
}

// keyHint says where the key of upstream i is set: its place in the config
// file, or the environment variable the built-in defaults read it from.
func keyHint(cfg *config.Config, i int) string {
	if cfg.File == "" {
		return "OPENAI_API_KEY"
	}
	return fmt.Sprintf("upstreams[%d].api_key", i)
}

// backoff is exponential from retryBase with ±50% jitter, so that many
// streams retrying at once do not hit the upstream in step.
func (u *upstream) backoff(attempt int) time.Duration {
	d := u.retryBase << attempt
	return d/2 + time.Duration(rand.Int64N(int64(d)+1))
}

func retryableStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// retryAfter parses Retry-After as seconds or an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// sseStream is one round's response body read as server-sent events.
type sseStream struct {
	body     io.ReadCloser
	idle     *idleBody
	upstream string
	// ctx is the round's, bounded by upstreams[].timeout.
	ctx      context.Context
	cancel   context.CancelFunc
	maxEvent int
}

func (s *sseStream) Events() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		r := newSSEReader(s.body, s.maxEvent)
		defer r.release() // the loop keeps no data past the sequence
		for {
			data, err := r.next()
			if err == io.EOF {
				return
			}
			if err != nil {
				yield("", s.readErr(err))
				return
			}
			if !yield(data, nil) {
				return
			}
		}
	}
}

// WaitHooks implements [loop.Waiter]: before and after run around each
// read of the body, which the reader does only once it has parsed every
// event it had.
func (s *sseStream) WaitHooks(before, after func()) {
	if s.idle != nil {
		s.idle.beforeRead, s.idle.afterRead = before, after
	}
}

// Close closes the body, then ends the round's context: the other way
// round the context's end would close the connection under the body, which
// could otherwise be kept for the next request.
func (s *sseStream) Close() error {
	err := s.body.Close()
	s.cancel()
	return err
}

var _ loop.Upstream = (*upstream)(nil)
