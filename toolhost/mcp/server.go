package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

const (
	// listTimeout bounds one tools/list walk. (Connecting is bounded by
	// the manager's connect timeouts.)
	listTimeout = 30 * time.Second
	// pingTimeout bounds one check of a streamable HTTP server (see
	// [Manager]'s watchEvery), whose connection, unlike a stdio pipe, does
	// not end when the server dies.
	pingTimeout = 10 * time.Second
)

// server is one configured MCP server and the goroutine that keeps it
// connected.
type server struct {
	m      *Manager
	cfg    config.MCPServer
	source string
	log    *slog.Logger
	stderr *stderrLog // shared by every process of this entry: one rate limit

	toolTimeout atomic.Int64 // loop.tool_timeout, as a Duration
	sess        atomic.Pointer[session]
	// running maps the progress tokens of calls in flight to the calls
	// (progress.go); tokens counts them out.
	running sync.Map
	tokens  atomic.Uint64

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	// connected is set once a connect succeeded; listed is what the
	// tools last registered were made from, and when and for how long
	// the server said that list is fresh (watch.go). Only run's
	// goroutine touches them.
	connected bool
	listed    listing
	// sessionsOnly: this stdio server ended at server/discover, and is
	// connected with the initialize handshake alone (connect).
	sessionsOnly bool

	mu      sync.Mutex
	state   State
	started bool
	stopped bool
}

// session is one live connection: what calls use while it lasts.
type session struct {
	cs *mcp.ClientSession
	// suspect wakes the watcher when a call saw a transport error, so a
	// dead HTTP server is found before the next ping.
	suspect chan struct{}
	// discover, for a server of the stateless revision over HTTP, asks
	// it server/discover: the revision has no ping (watch.go).
	discover func(context.Context) error
}

func newServer(m *Manager, cfg config.MCPServer, toolTimeout time.Duration) *server {
	ctx, cancel := context.WithCancel(context.Background())
	log := m.log.With(slog.String("mcp_server", cfg.Name))
	s := &server{
		m: m, cfg: cfg, source: toolhost.SourceMCPPrefix + cfg.Name, log: log,
		stderr: newStderrLog(log),
		ctx:    ctx, cancel: cancel, done: make(chan struct{}),
		state: State{Name: cfg.Name, Status: StatusConnecting, Since: time.Now()},
	}
	s.toolTimeout.Store(int64(toolTimeout))
	return s
}

func (s *server) setToolTimeout(d time.Duration) { s.toolTimeout.Store(int64(d)) }

// start runs the server's goroutine, unless stop came first.
func (s *server) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	s.started = true
	go s.run()
}

// stop ends the goroutine and waits for it: the connection is closed (a
// stdio process ends) and the tools are unregistered.
func (s *server) stop() {
	s.mu.Lock()
	s.stopped = true
	started := s.started
	s.mu.Unlock()
	s.cancel()
	if started {
		<-s.done
	}
}

// run connects, serves and reconnects with backoff until stopped.
func (s *server) run() {
	defer close(s.done)
	failures := 0
	flapping := false
	for {
		upFor, err := s.serve(flapping)
		if s.ctx.Err() != nil {
			s.setStatus(StatusDown, "stopped", 0)
			return
		}
		// A session that lasted is a fresh start; one that died at once
		// is a crash loop, which must keep backing off.
		if upFor >= s.m.max {
			failures = 0
		}
		flapping = upFor > 0 && upFor < s.m.max
		wait := s.m.backoff(failures)
		failures++
		msg := s.clean(err)
		s.setStatus(StatusDown, msg, 0)
		attrs := []slog.Attr{slog.String("error", msg), slog.Duration("retry_in", wait.Round(time.Millisecond))}
		if upFor > 0 {
			attrs = append(attrs, slog.Duration("was_up", upFor.Round(time.Millisecond)))
		}
		s.log.LogAttrs(s.ctx, slog.LevelWarn, "MCP server down; reconnecting", attrs...)
		t := time.NewTimer(wait)
		select {
		case <-s.ctx.Done():
			t.Stop()
			s.setStatus(StatusDown, "stopped", 0)
			return
		case <-t.C:
		}
	}
}

// backoff is the wait before reconnect attempt n+1: min·2ⁿ capped at
// max, jittered to between half and all of it so that servers that fell
// together do not come back together.
func (m *Manager) backoff(n int) time.Duration {
	d := m.max
	if n < 30 && m.min<<n < m.max {
		d = m.min << n
	}
	return d/2 + rand.N(d/2+1)
}

// serve connects once, registers the tools and watches the connection
// until it ends or the server is stopped. upFor is how long the tools
// were registered; zero when the server never came up.
func (s *server) serve(flapping bool) (upFor time.Duration, err error) {
	changed := make(chan struct{}, 1)
	client := s.newClient(changed)
	timeout := s.m.connect
	if !s.connected {
		// Until the server first connects, each attempt may be the
		// one that downloads it (npx -y); see DefaultFirstConnectTimeout.
		timeout = s.m.firstConnect
	}
	cs, tr, cleanup, err := s.connect(client, timeout)
	if err != nil && errors.Is(err, context.DeadlineExceeded) && s.ctx.Err() == nil {
		return 0, fmt.Errorf("connecting: no answer within %s: %w", timeout, err)
	}
	if err != nil {
		return 0, fmt.Errorf("connecting: %w", err)
	}
	defer cleanup()
	s.connected = true
	ended := make(chan error, 1)
	go func() { ended <- cs.Wait() }()
	sess := &session{cs: cs, suspect: make(chan struct{}, 1), discover: s.discoverer(cs, tr)}
	defer func() {
		// Tools leave first, then calls in flight fail with the closed
		// connection, then the goroutine above ends.
		s.unregister()
		s.sess.Store(nil)
		_ = cs.Close()
		<-ended
	}()
	s.sess.Store(sess)
	n, _, err := s.refresh(cs)
	if err != nil {
		return 0, fmt.Errorf("listing tools: %w", err)
	}
	began := time.Now()
	s.setStatus(StatusUp, "", n)
	level := slog.LevelInfo
	if flapping {
		level = slog.LevelDebug // a crash loop logs its down lines only
	}
	s.log.LogAttrs(s.ctx, level, "MCP server up", slog.Int("tools", n), slog.String("protocol", cs.InitializeResult().ProtocolVersion))
	err = s.watch(sess, ended, changed)
	return time.Since(began), err
}

// connect starts one attempt's connection and opens its session; the
// SDK tries the stateless revision first (server/discover) and falls
// back to the initialize handshake. A stdio server that ends at that
// first request — rmcp's (the Rust SDK's) end at any request before
// initialize — is started again at once for initialize alone, and kept
// to it while this entry runs (unless that fails too: the next attempt
// tries both again).
func (s *server) connect(client *mcp.Client, timeout time.Duration) (*mcp.ClientSession, mcp.Transport, func(), error) {
	for {
		tr, cleanup, err := s.transport()
		if err != nil {
			return nil, nil, nil, err
		}
		var opts *mcp.ClientSessionOptions
		if s.sessionsOnly {
			opts = &mcp.ClientSessionOptions{ProtocolVersion: lastSessionRevision}
		}
		cctx, cancel := context.WithTimeout(s.ctx, timeout)
		cs, err := client.Connect(cctx, tr, opts)
		cancel()
		if err == nil {
			return cs, tr, cleanup, nil
		}
		cleanup()
		if s.cfg.Command == "" || s.ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || s.sessionsOnly {
			s.sessionsOnly = false
			return nil, nil, nil, err
		}
		s.sessionsOnly = true
		s.log.LogAttrs(s.ctx, slog.LevelDebug, "MCP server ended at server/discover; starting it again for initialize", slog.String("error", err.Error()))
	}
}

// newClient is the SDK client of one connect attempt; changed hears of
// the server's notifications/tools/list_changed.
func (s *server) newClient(changed chan<- struct{}) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "toolstream", Version: "1"}, &mcp.ClientOptions{
		Logger: s.log,
		// No roots, sampling or elicitation: toolstream only calls tools.
		Capabilities: &mcp.ClientCapabilities{},
		// Calls carry a progress token (call.go); the server's
		// notifications/progress for one reach the call's listener.
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			s.progress(req.Params)
		},
		// In a session the notification comes unasked; from a stateless
		// server, on the subscriptions/listen stream the SDK opens when
		// the server offers list changes.
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default: // a refresh is already due
			}
		},
	})
}

// refresh lists the server's tools and registers them, replacing the
// ones registered before, unless the list is the one registered last;
// it returns how many are registered and whether that changed.
func (s *server) refresh(cs *mcp.ClientSession) (n int, changed bool, err error) {
	ctx, cancel := context.WithTimeout(s.ctx, listTimeout)
	defer cancel()
	l, tools, err := listTools(ctx, cs)
	if err != nil {
		return 0, false, err
	}
	if l.fingerprint == s.listed.fingerprint && s.listed.fingerprint != "" {
		s.listed = l
		return s.snapshot().Tools, false, nil
	}
	regs := s.registrations(tools)
	err = s.m.host.SetSource(s.source, regs)
	if errors.Is(err, toolhost.ErrShadowed) {
		// Another source took a name since registrations looked: drop
		// what clashes now and try once more.
		regs = s.dropShadowed(regs)
		err = s.m.host.SetSource(s.source, regs)
	}
	if err != nil {
		return 0, false, fmt.Errorf("registering tools: %w", err)
	}
	s.listed = l
	names := make([]string, len(regs))
	for i, r := range regs {
		names[i] = r.Tool.Name
	}
	s.mu.Lock()
	s.state.Names = names
	s.mu.Unlock()
	return len(regs), true, nil
}

// unregister takes the server's tools out of the turn's list.
func (s *server) unregister() {
	s.listed = listing{}
	if err := s.m.host.SetSource(s.source, nil); err != nil {
		s.log.LogAttrs(context.Background(), slog.LevelError, "unregistering MCP tools", slog.String("error", err.Error()))
	}
}

func (s *server) setStatus(status, msg string, tools int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Status != status {
		s.state.Since = time.Now()
	}
	s.state.Status, s.state.Error, s.state.Tools = status, msg, tools
}

func (s *server) setTools(n int) {
	s.mu.Lock()
	s.state.Tools = n
	s.mu.Unlock()
}

func (s *server) snapshot() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state
	st.Names = slices.Clone(st.Names) // the caller's
	return st
}
