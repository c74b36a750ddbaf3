package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/upstream"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/mask"
)

// ErrShuttingDown is the cause a request's context is cancelled with when
// [Server.CutStreams] ends what the shutdown grace did not let finish. A
// turn cut this way is not a client that left: a stream ends with one
// "shutting_down" error event and no [DONE], a request not yet answered
// gets 503, and the turn is logged with status "shutdown" (docs/http-api.md).
//
// It wraps [toolhost.ErrShuttingDown], so that the tool host, which sees
// only the context, records an approval wait it ends as ended by the
// shutdown.
var ErrShuttingDown = fmt.Errorf("proxy: %w", toolhost.ErrShuttingDown)

// state is everything a reload may change, built whole from one
// configuration and never modified after: a request reads it once and
// keeps it, so a turn runs to its end with the upstreams, keys and loop
// settings it started with, whatever reloads happen meanwhile.
type state struct {
	cfg *config.Config
	// adminKeys may call /admin/* (auth.admin_keys).
	adminKeys keySet
	upstreams []*upstream.Client
	// def is the default upstream; nil when there is none.
	def *upstream.Client
	// mask hides the config's secrets in what the proxy relays.
	mask *mask.Masker
	// secrets are what mask hides, to tell whether a reload changed them.
	secrets []string
}

// newState builds the state of cfg. Upstreams whose configuration did not
// change are taken over from prev (nil at start-up) with their connection
// pools — unless the config's secrets changed, since each upstream masks
// them in the errors it relays.
func newState(cfg *config.Config, log *slog.Logger, prev *state, m *metrics) (*state, error) {
	admin, err := newKeySet(cfg.Auth.AdminKeys)
	if err != nil {
		return nil, err
	}
	secrets := configSecrets(cfg)
	st := &state{cfg: cfg, adminKeys: admin, mask: mask.New(secrets), secrets: secrets}
	if prev != nil && !slices.Equal(prev.secrets, secrets) {
		prev = nil
	}
	// An SSE event may carry a whole message or a large tool-call argument
	// in one go; allow twice the largest tool block, at least 2MiB.
	maxEvent := max(2*cfg.Loop.MaxBlockBytes.Int(), 2<<20)
	for i, uc := range cfg.Upstreams {
		u := prev.unchanged(uc, maxEvent)
		if u == nil {
			u, err = upstream.New(uc, upstream.Options{MaxEvent: maxEvent, Log: log, KeyHint: keyHint(cfg, i), TTFB: m.ttfb.WithLabelValues(uc.Name)})
			if err != nil {
				return nil, err
			}
		}
		st.upstreams = append(st.upstreams, u)
	}
	if name := cfg.DefaultUpstreamName(); name != "" {
		for _, u := range st.upstreams {
			if u.Name() == name {
				st.def = u
			}
		}
		if st.def == nil {
			return nil, fmt.Errorf("default_upstream %q names no upstream", name)
		}
	}
	// Last, when nothing can fail: a state that is refused starts no
	// checks. An upstream taken over keeps its own running.
	for _, u := range st.upstreams {
		hc := u.Config().HealthCheck
		u.Start(hc.Interval, hc.Path)
	}
	return st, nil
}

// unchanged returns the upstream of st configured exactly as uc, or nil.
func (st *state) unchanged(uc config.Upstream, maxEvent int) *upstream.Client {
	if st == nil {
		return nil
	}
	for _, u := range st.upstreams {
		if u.Name() == uc.Name && u.MaxEvent() == maxEvent && reflect.DeepEqual(*u.Config(), uc) {
			return u
		}
	}
	return nil
}

// stateKey keys the request's state in its context.
type stateKey struct{}

// stateOf returns the state the request started with.
func (s *Server) stateOf(c echo.Context) *state {
	if st, ok := c.Request().Context().Value(stateKey{}).(*state); ok {
		return st
	}
	return s.state.Load()
}

// Reload switches to cfg, a validated configuration: upstreams,
// default_upstream, client and admin keys, loop settings and
// max_request_bytes apply to requests that arrive from now on; requests
// already running finish with the configuration they started with. listen
// and storage are not the Server's to change. On error nothing changes.
func (s *Server) Reload(cfg *config.Config) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	old := s.state.Load()
	st, err := newState(cfg, s.log, old, s.metrics)
	if err != nil {
		return err
	}
	s.state.Store(st)
	s.keys.SetConfig(cfg.Auth.Keys)
	s.remote.guard.SetAllow(cfg.Auth.MCPAllow)
	UpdateMasking(s.log.Handler(), cfg)
	// Turns still running on a replaced upstream keep their connections;
	// the idle ones go now, the others when they are next idle.
	for _, u := range old.upstreams {
		if st.unchanged(*u.Config(), u.MaxEvent()) != u {
			u.Close()
		}
	}
	return nil
}

// inflight counts the requests being served, so that a shutdown can cut
// them and wait for their handlers to return.
type inflight struct {
	mu     sync.Mutex
	next   uint64
	active map[uint64]context.CancelCauseFunc
	// cut is set by CutStreams; requests arriving later are cut at once.
	cut bool
	// idle is closed once cut is set and no request is active.
	idle chan struct{}
}

// begin registers a request arriving with net/http's context parent and
// returns its context and its reqLife, whose end takes it off the list.
// The context of a request whose stream may leave its handler (detach)
// does not end with parent: parent's cancellation reaches it until the
// stream leaves, by way of an AfterFunc. Any other request's is parent's
// child, cancelled with it at once.
func (f *inflight) begin(parent context.Context, detach bool) (context.Context, *reqLife) {
	var ctx context.Context
	var cancel context.CancelCauseFunc
	l := &reqLife{f: f, stop: func() bool { return true }}
	if detach {
		ctx, cancel = context.WithCancelCause(context.WithoutCancel(parent))
		l.stop = context.AfterFunc(parent, func() {
			if !l.detached.Load() {
				cancel(context.Cause(parent))
			}
		})
		ctx = context.WithValue(ctx, lifeKey{}, l)
	} else {
		ctx, cancel = context.WithCancelCause(parent)
	}
	l.cancel = cancel
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cut {
		cancel(ErrShuttingDown)
		return ctx, l
	}
	l.id, l.listed = f.next, true
	f.next++
	f.active[l.id] = cancel
	return ctx, l
}

// finish takes request id off the list.
func (f *inflight) finish(id uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.active, id)
	if f.cut && len(f.active) == 0 {
		close(f.idle)
	}
}

// CutStreams ends what is still running when the shutdown grace is over.
// Every request in flight has its context cancelled with
// [ErrShuttingDown]: a stream gets one "shutting_down" error event and
// ends without [DONE], a request not yet answered gets 503, and running
// tool calls are cancelled (and recorded so). CutStreams then waits until
// their handlers have returned, or ctx is done, and reports how many
// requests it cut. Requests arriving afterwards are cut at once.
//
// Call it after http.Server.Shutdown gave up, then call Shutdown again
// with a short deadline: the cut handlers' last bytes are written when
// they return, and Shutdown closes each connection once it is idle.
func (s *Server) CutStreams(ctx context.Context) (int, error) {
	f := &s.inflight
	f.mu.Lock()
	n := len(f.active)
	if !f.cut {
		f.cut = true
		f.idle = make(chan struct{})
		if n == 0 {
			close(f.idle)
		}
	}
	for _, cancel := range f.active {
		cancel(ErrShuttingDown)
	}
	idle := f.idle
	f.mu.Unlock()
	select {
	case <-idle:
		return n, nil
	case <-ctx.Done():
		f.mu.Lock()
		left := len(f.active)
		f.mu.Unlock()
		return n, fmt.Errorf("%d of %d cut requests still running: %w", left, n, ctx.Err())
	}
}

// Drain waits until no request is in flight, or ctx is done. A stream
// that left its handler (detach.go) holds no connection
// http.Server.Shutdown waits for: call Drain after Shutdown returned, to
// give such streams the same grace.
func (s *Server) Drain(ctx context.Context) error {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		s.inflight.mu.Lock()
		n := len(s.inflight.active)
		s.inflight.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d requests still running: %w", n, ctx.Err())
		case <-t.C:
		}
	}
}

// cutCause reports a turn stopped by [Server.CutStreams] as
// ErrShuttingDown, whatever error the cut surfaced as (a cancelled
// upstream request, a cancelled tool call): the cause of the turn's
// context tells a shutdown apart from a client that left.
func cutCause(ctx context.Context, err error) error {
	if err == nil || errors.Is(err, ErrShuttingDown) || !errors.Is(context.Cause(ctx), ErrShuttingDown) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrShuttingDown, err)
}

// keyHint says where the key of upstream i is set: its place in the config
// file, or the environment variable the built-in defaults read it from.
func keyHint(cfg *config.Config, i int) string {
	if cfg.File == "" {
		return "OPENAI_API_KEY"
	}
	return fmt.Sprintf("upstreams[%d].api_key", i)
}
