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
	// pingInterval and pingTimeout watch a streamable HTTP server, whose
	// connection, unlike a stdio pipe, does not end when the server dies.
	pingInterval = 15 * time.Second
	pingTimeout  = 10 * time.Second
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

	// connected is set once a connect succeeded; only run's goroutine
	// touches it.
	connected bool

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
	client := mcp.NewClient(&mcp.Implementation{Name: "toolstream", Version: "1"}, &mcp.ClientOptions{
		Logger: s.log,
		// No roots, sampling or elicitation: toolstream only calls tools.
		Capabilities: &mcp.ClientCapabilities{},
		// Calls carry a progress token (call.go); the server's
		// notifications/progress for one reach the call's listener.
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			s.progress(req.Params)
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default: // a refresh is already due
			}
		},
	})
	tr, cleanup, err := s.transport()
	if err != nil {
		return 0, err
	}
	defer cleanup()
	timeout := s.m.connect
	if !s.connected {
		// Until the server first connects, each attempt may be the
		// one that downloads it (npx -y); see DefaultFirstConnectTimeout.
		timeout = s.m.firstConnect
	}
	cctx, cancel := context.WithTimeout(s.ctx, timeout)
	cs, err := client.Connect(cctx, tr, nil)
	cancel()
	if err != nil && errors.Is(err, context.DeadlineExceeded) && s.ctx.Err() == nil {
		return 0, fmt.Errorf("connecting: no answer within %s: %w", timeout, err)
	}
	if err != nil {
		return 0, fmt.Errorf("connecting: %w", err)
	}
	s.connected = true
	ended := make(chan error, 1)
	go func() { ended <- cs.Wait() }()
	sess := &session{cs: cs, suspect: make(chan struct{}, 1)}
	defer func() {
		// Tools leave first, then calls in flight fail with the closed
		// connection, then the goroutine above ends.
		s.unregister()
		s.sess.Store(nil)
		_ = cs.Close()
		<-ended
	}()
	s.sess.Store(sess)
	n, err := s.refresh(cs)
	if err != nil {
		return 0, fmt.Errorf("listing tools: %w", err)
	}
	began := time.Now()
	s.setStatus(StatusUp, "", n)
	level := slog.LevelInfo
	if flapping {
		level = slog.LevelDebug // a crash loop logs its down lines only
	}
	s.log.LogAttrs(s.ctx, level, "MCP server up", slog.Int("tools", n))

	var ping <-chan time.Time
	if s.cfg.URL != "" {
		t := time.NewTicker(pingInterval)
		defer t.Stop()
		ping = t.C
	}
	for {
		select {
		case <-s.ctx.Done():
			return time.Since(began), nil
		case err := <-ended:
			ended <- err // for the deferred wait
			if err == nil {
				err = errors.New("the server closed the connection")
			}
			return time.Since(began), fmt.Errorf("disconnected: %w", err)
		case <-changed:
			n, err := s.refresh(cs)
			if err != nil {
				if s.ctx.Err() != nil {
					return time.Since(began), nil
				}
				return time.Since(began), fmt.Errorf("listing tools after list_changed: %w", err)
			}
			s.setTools(n)
			s.log.LogAttrs(s.ctx, slog.LevelInfo, "MCP server's tools changed", slog.Int("tools", n))
		case <-sess.suspect:
			if err := s.ping(cs); err != nil {
				return time.Since(began), err
			}
		case <-ping:
			if err := s.ping(cs); err != nil {
				return time.Since(began), err
			}
		}
	}
}

func (s *server) ping(cs *mcp.ClientSession) error {
	ctx, cancel := context.WithTimeout(s.ctx, pingTimeout)
	defer cancel()
	if err := cs.Ping(ctx, nil); err != nil && s.ctx.Err() == nil {
		return fmt.Errorf("no answer to ping: %w", err)
	}
	return nil
}

// refresh lists the server's tools and registers them, replacing the
// ones registered before; it returns how many were registered.
func (s *server) refresh(cs *mcp.ClientSession) (int, error) {
	ctx, cancel := context.WithTimeout(s.ctx, listTimeout)
	defer cancel()
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return 0, err
		}
		tools = append(tools, t)
	}
	regs := s.registrations(tools)
	err := s.m.host.SetSource(s.source, regs)
	if errors.Is(err, toolhost.ErrShadowed) {
		// Another source took a name since registrations looked: drop
		// what clashes now and try once more.
		regs = s.dropShadowed(regs)
		err = s.m.host.SetSource(s.source, regs)
	}
	if err != nil {
		return 0, fmt.Errorf("registering tools: %w", err)
	}
	names := make([]string, len(regs))
	for i, r := range regs {
		names[i] = r.Tool.Name
	}
	s.mu.Lock()
	s.state.Names = names
	s.mu.Unlock()
	return len(regs), nil
}

// unregister takes the server's tools out of the turn's list.
func (s *server) unregister() {
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
