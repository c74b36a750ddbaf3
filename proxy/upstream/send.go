package upstream

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/upstream/internal/h1"
)

// maxRetryAfter is the longest Retry-After honoured by waiting; a longer
// one is relayed to the client, whose SDK can wait itself.
const maxRetryAfter = 20 * time.Second

// post sends body to path rel of a server of the pool and returns the
// first answer it does not try again, whatever its status.
//
// The one rule for sending again (the rule nginx follows for a POST): a
// request goes again — to the next server of the pool, or to the same one
// after a backoff — only when none of it was written (the connection
// failed), or when the server answered 429, 500, 502, 503, 504 or 529
// before any body. Once a byte of the request was written the server may
// have started on it, and a model server that started costs GPU time or
// money; such a failure is the round's, never resent.
func (c *Client) post(ctx context.Context, rel string, body []byte, accept string) (*http.Response, error) {
	attempts := max(maxAttempts, len(c.servers))
	var small [8]bool // a pool this small needs no allocation per request
	tried := small[:0]
	if len(c.servers) <= len(small) {
		tried = small[:len(c.servers)]
	} else {
		tried = make([]bool, len(c.servers))
	}
	for attempt := 0; ; attempt++ {
		s := c.pick(tried)
		h := make(http.Header, 4+len(c.cfg.Headers))
		c.SetHeaders(h)
		injectTrace(ctx, h)
		h.Set("Content-Type", "application/json")
		h.Set("Accept", accept)
		// Setting it turns off Go's transparent gzip: a compressing upstream
		// would hold SSE bytes back in its compressor blocks.
		h.Set("Accept-Encoding", "identity")

		sent := time.Now()
		resp, err := c.send(ctx, s, rel, h, body)
		if err != nil {
			if ctx.Err() != nil {
				return nil, c.ctxErr(ctx)
			}
			var ns *h1.NotSentError
			notSent := errors.As(err, &ns)
			if notSent {
				s.health.refused()
			}
			if !notSent || attempt+1 >= attempts {
				return nil, &Failure{Upstream: c.cfg.Name, Err: err, NotSent: notSent}
			}
			c.log.LogAttrs(ctx, slog.LevelDebug, "upstream retry", slog.String("upstream", c.cfg.Name), slog.Int("attempt", attempt+1), slog.String("error", err.Error()))
			if c.others(tried) {
				continue // another server: no reason to wait
			}
			if err := c.sleep(ctx, c.backoff(attempt)); err != nil {
				return nil, c.ctxErr(ctx)
			}
			clear(tried)
			continue
		}
		if attempt+1 < attempts && loop.StatusUnstarted(resp.StatusCode) {
			wait, ok := retryAfter(resp.Header, time.Now())
			if !ok {
				wait = c.backoff(attempt)
			}
			if wait <= maxRetryAfter {
				io.Copy(io.Discard, io.LimitReader(resp.Body, MaxErrorBody))
				resp.Body.Close()
				c.log.LogAttrs(ctx, slog.LevelDebug, "upstream retry", slog.String("upstream", c.cfg.Name), slog.Int("attempt", attempt+1), slog.Int("status", resp.StatusCode))
				if c.others(tried) {
					continue
				}
				if err := c.sleep(ctx, wait); err != nil {
					return nil, c.ctxErr(ctx)
				}
				clear(tried)
				continue
			}
		}
		if c.ttfb != nil && resp.StatusCode == http.StatusOK {
			resp.Body = &firstByte{ReadCloser: resp.Body, start: sent, obs: c.ttfb}
		}
		resp.Body = &release{ReadCloser: resp.Body, busy: &s.busy}
		return resp, nil
	}
}

// maxAttempts bounds the sends of one request to a single server.
const maxAttempts = 3

// others reports whether a server of the pool is left untried.
func (c *Client) others(tried []bool) bool {
	for _, t := range tried {
		if !t {
			return true
		}
	}
	return false
}

// send posts body to rel on server s once: over h1 when s is plain http
// (a chat request follows no redirects, and http.Client's bookkeeping for
// them costs a header copy and a kilobyte of every stream's stack), over
// net/http otherwise. Either way an error says, as an [h1.NotSentError],
// when nothing of the request was written. s counts as busy until the
// answer's body is closed.
func (c *Client) send(ctx context.Context, s *server, rel string, h http.Header, body []byte) (*http.Response, error) {
	s.busy.Add(1)
	resp, err := c.sendOnce(ctx, s, rel, h, body)
	if err != nil {
		s.busy.Add(-1)
	}
	return resp, err
}

func (c *Client) sendOnce(ctx context.Context, s *server, rel string, h http.Header, body []byte) (*http.Response, error) {
	if s.useH1 {
		path := s.chatPath // every round asks for it: built once
		if rel != chatPath {
			path = joinURL(s.base, rel).RequestURI()
		}
		return c.h1.Post(ctx, &h1.Request{Addr: s.addr, Host: s.base.Host, Path: path, Header: h, Body: body})
	}
	u := joinURL(s.base, rel)
	// net/http does not say whether it wrote anything; a connection it
	// got is taken as written to.
	var gotConn atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { gotConn.Store(true) }})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = h
	resp, err := c.client.Do(req)
	if err != nil && !gotConn.Load() && ctx.Err() == nil {
		return nil, &h1.NotSentError{Err: err}
	}
	return resp, err
}

// SetHeaders adds the upstream's own key and headers. The client's key is
// never forwarded.
func (c *Client) SetHeaders(h http.Header) {
	for k, v := range c.cfg.Headers {
		h.Set(k, v)
	}
	if k := c.cfg.APIKey.Value(); k != "" {
		h.Set("Authorization", "Bearer "+k)
	}
}

// ctxErr reports why ctx ended: the round's own timeout is an upstream
// failure (504); a cancelled parent is the client leaving.
func (c *Client) ctxErr(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Failure{Upstream: c.cfg.Name, Err: context.DeadlineExceeded}
	}
	return context.Cause(ctx)
}

// release marks a server not busy once its answer is closed.
type release struct {
	io.ReadCloser
	busy *atomic.Int64
	done atomic.Bool
}

func (r *release) Close() error {
	if r.done.CompareAndSwap(false, true) {
		r.busy.Add(-1)
	}
	return r.ReadCloser.Close()
}
