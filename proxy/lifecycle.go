package proxy

import (
	"fmt"
	"log/slog"
	"reflect"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/config"
)

// state is everything a reload may change, built whole from one
// configuration and never modified after: a request reads it once and
// keeps it, so a turn runs to its end with the upstreams, keys and loop
// settings it started with, whatever reloads happen meanwhile.
type state struct {
	cfg  *config.Config
	keys keySet
	// adminKeys may call /admin/* (auth.admin_keys).
	adminKeys keySet
	upstreams []*upstream
	// def is the default upstream; nil when there is none.
	def *upstream
}

// newState builds the state of cfg. Upstreams whose configuration did not
// change are taken over from prev (nil at start-up) with their connection
// pools.
func newState(cfg *config.Config, log *slog.Logger, prev *state) (*state, error) {
	keys, err := newKeySet(cfg.Auth.Keys)
	if err != nil {
		return nil, err
	}
	admin, err := newKeySet(cfg.Auth.AdminKeys)
	if err != nil {
		return nil, err
	}
	st := &state{cfg: cfg, keys: keys, adminKeys: admin}
	// An SSE event may carry a whole message or a large tool-call argument
	// in one go; allow twice the largest tool block, at least 2MiB.
	maxEvent := max(2*cfg.Loop.MaxBlockBytes.Int(), 2<<20)
	for _, uc := range cfg.Upstreams {
		u := prev.unchanged(uc, maxEvent)
		if u == nil {
			if u, err = newUpstream(uc, maxEvent, log); err != nil {
				return nil, err
			}
		}
		st.upstreams = append(st.upstreams, u)
	}
	if name := cfg.DefaultUpstreamName(); name != "" {
		for _, u := range st.upstreams {
			if u.cfg.Name == name {
				st.def = u
			}
		}
		if st.def == nil {
			return nil, fmt.Errorf("default_upstream %q names no upstream", name)
		}
	}
	return st, nil
}

// unchanged returns the upstream of st configured exactly as uc, or nil.
func (st *state) unchanged(uc config.Upstream, maxEvent int) *upstream {
	if st == nil {
		return nil
	}
	for _, u := range st.upstreams {
		if u.cfg.Name == uc.Name && u.maxEvent == maxEvent && reflect.DeepEqual(u.cfg, uc) {
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
	st, err := newState(cfg, s.log, old)
	if err != nil {
		return err
	}
	s.state.Store(st)
	// Turns still running on a replaced upstream keep their connections;
	// the idle ones go now, the others when they are next idle.
	for _, u := range old.upstreams {
		if st.unchanged(u.cfg, u.maxEvent) != u {
			u.client.CloseIdleConnections()
		}
	}
	return nil
}
