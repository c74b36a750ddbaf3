package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statelessRevision is the first MCP revision without sessions
// (2026-07-28): no ping, list changes on a subscriptions/listen stream,
// and tools/list results that say how long they stay fresh (ttlMs).
const statelessRevision = "2026-07-28"

// lastSessionRevision is the newest revision of the initialize handshake,
// asked for alone of a server that cannot take server/discover.
const lastSessionRevision = "2025-11-25"

// DefaultWatchEvery is how often a streamable HTTP server is checked
// (jittered): a ping in a session; in the stateless revision, which has
// no ping, tools/list once the last list is no longer fresh, else
// server/discover.
const DefaultWatchEvery = 15 * time.Second

// listing is what a tools/list walk returned, as far as the watcher
// needs it: what the tools were, and until when the server called the
// list fresh.
type listing struct {
	fingerprint string
	at          time.Time
	ttl         time.Duration
}

// fresh tells whether the server's cache hint still holds the list for
// good: zero (or none: a server of a revision with sessions) is stale at
// once.
func (l listing) fresh(now time.Time) bool {
	return now.Sub(l.at) < l.ttl
}

// listTools walks tools/list. The SDK serves a stateless server's pages from
// its own cache while the server's ttlMs holds, so a walk of a fresh
// list costs no request.
func listTools(ctx context.Context, cs *mcp.ClientSession) (listing, []*mcp.Tool, error) {
	var tools []*mcp.Tool
	ttl := -1
	params := &mcp.ListToolsParams{}
	for {
		res, err := cs.ListTools(ctx, params)
		if err != nil {
			return listing{}, nil, err
		}
		tools = append(tools, res.Tools...)
		if ttl < 0 || res.TTLMs < ttl {
			ttl = res.TTLMs
		}
		if res.NextCursor == "" {
			break
		}
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
	b, err := json.Marshal(tools)
	if err != nil {
		return listing{}, nil, err
	}
	return listing{fingerprint: string(b), at: time.Now(), ttl: time.Duration(max(ttl, 0)) * time.Millisecond}, tools, nil
}

// watch follows a live session until it ends or the server is stopped:
// list changes are listed again, and an HTTP server is checked every
// watchEvery, jittered (and at once when a call saw the transport fail).
func (s *server) watch(sess *session, ended chan error, changed <-chan struct{}) error {
	var tick <-chan time.Time
	var t *time.Timer
	if s.cfg.URL != "" {
		t = time.NewTimer(jitter(s.m.watchEvery))
		defer t.Stop()
		tick = t.C
	}
	for {
		var err error
		select {
		case <-s.ctx.Done():
			return nil
		case err := <-ended:
			ended <- err // for the deferred wait
			if err == nil {
				err = errors.New("the server closed the connection")
			}
			return fmt.Errorf("disconnected: %w", err)
		case <-changed:
			if err = s.relist(sess.cs); err != nil {
				err = fmt.Errorf("listing tools after list_changed: %w", err)
			}
		case <-sess.suspect:
			err = s.check(sess, false)
		case <-tick:
			err = s.check(sess, true)
			t.Reset(jitter(s.m.watchEvery))
		}
		if err != nil {
			if s.ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}

// relist lists the tools again and registers them if they changed.
func (s *server) relist(cs *mcp.ClientSession) error {
	n, changed, err := s.refresh(cs)
	if err != nil || !changed {
		return err
	}
	s.setTools(n)
	s.log.LogAttrs(s.ctx, slog.LevelInfo, "MCP server's tools changed", slog.Int("tools", n))
	return nil
}

// check asks whether the server still answers. In a session that is a
// ping. A stateless server has none: on the regular check, a list past
// its ttlMs is listed again (which answers both questions, and catches a
// change whose notification was lost with a listen stream), and
// otherwise, as after a failed call, it is asked server/discover.
func (s *server) check(sess *session, regular bool) error {
	ctx, cancel := context.WithTimeout(s.ctx, pingTimeout)
	defer cancel()
	if sess.discover == nil {
		if err := sess.cs.Ping(ctx, nil); err != nil {
			return fmt.Errorf("no answer to ping: %w", err)
		}
		return nil
	}
	if regular && !s.listed.fresh(time.Now()) {
		return s.relist(sess.cs)
	}
	if err := sess.discover(ctx); err != nil {
		return fmt.Errorf("no answer to server/discover: %w", err)
	}
	return nil
}

// discoverer is how a stateless HTTP server is checked: a connect of a
// client of its own, over the same HTTP client (headers, connection
// pool), which in that revision is one server/discover request and
// leaves nothing open. A server that answers in another revision has
// been replaced, and the session is started again. nil for a server in
// a session, or over stdio (a pipe ends with its process).
func (s *server) discoverer(cs *mcp.ClientSession, tr mcp.Transport) func(context.Context) error {
	version := cs.InitializeResult().ProtocolVersion
	st, ok := tr.(*mcp.StreamableClientTransport)
	if !ok || version < statelessRevision {
		return nil
	}
	return func(ctx context.Context) error {
		c := mcp.NewClient(&mcp.Implementation{Name: "toolstream", Version: "1"},
			&mcp.ClientOptions{Logger: s.log, Capabilities: &mcp.ClientCapabilities{}})
		probe, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: st.Endpoint, HTTPClient: st.HTTPClient},
			&mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			return err
		}
		got := probe.InitializeResult().ProtocolVersion
		_ = probe.Close()
		if got != version {
			return fmt.Errorf("the server now speaks MCP %s, not %s", got, version)
		}
		return nil
	}
}

// jitter spreads d over [¾d, 1¼d], so that servers checked together
// drift apart, as a client that polls must.
func jitter(d time.Duration) time.Duration {
	return d*3/4 + rand.N(d/2+1)
}
