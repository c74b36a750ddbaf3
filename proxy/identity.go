package proxy

import (
	"errors"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Errors of the admin and actions surfaces; toAPIError maps each.
var (
	// errNoAdminKeys: /admin routes exist but nobody may call them.
	errNoAdminKeys = errors.New("proxy: no admin keys configured (auth.admin_keys)")
	// errAdminOnly: a client key on a route that needs an admin key.
	errAdminOnly = errors.New("proxy: this route needs an admin key")
)

// identify tells who presents the request's key: an admin key, one of the
// client keys, or — when the proxy has no client keys — anyone, with an
// empty key id. ok is false for a key that is neither.
func (s *Server) identify(c echo.Context) (toolhost.Decider, bool) {
	st := s.stateOf(c)
	k := presentedKey(c)
	if k != "" && !st.adminKeys.open() && st.adminKeys.check(k) {
		return toolhost.Decider{KeyID: store.KeyID(k), Admin: true}, true
	}
	if s.keys.Open() {
		return toolhost.Decider{}, true
	}
	if ck, ok := s.keys.Lookup(k); ok {
		if lim := ck.Limiter(); lim != nil {
			// Every answer to a limited key says where it stands.
			lim.Peek(s.keys.Now()).SetHeaders(c.Response().Header())
		}
		return toolhost.Decider{KeyID: ck.Name}, true
	}
	return toolhost.Decider{}, false
}

// requireClientOrAdmin admits client keys and admin keys (the actions
// API: admins read and decide every action).
func (s *Server) requireClientOrAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		who, ok := s.identify(c)
		if !ok {
			return errUnauthorized
		}
		c.Set(ctxDecider, who)
		return next(c)
	}
}

// requireAdmin admits admin keys only; without admin keys configured the
// admin routes are closed to everyone.
func (s *Server) requireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		st := s.stateOf(c)
		if st.adminKeys.open() {
			return errNoAdminKeys
		}
		k := presentedKey(c)
		if k == "" {
			return errUnauthorized
		}
		if !st.adminKeys.check(k) {
			if _, ok := s.keys.Lookup(k); ok {
				return errAdminOnly
			}
			return errUnauthorized
		}
		c.Set(ctxDecider, toolhost.Decider{KeyID: store.KeyID(k), Admin: true})
		return next(c)
	}
}

const ctxDecider = "toolstream.decider"

func decider(c echo.Context) toolhost.Decider {
	d, _ := c.Get(ctxDecider).(toolhost.Decider)
	return d
}
