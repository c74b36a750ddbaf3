package proxy

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/proxy/internal/live"
)

// liveKeepalive is how often GET /admin/live writes a comment while no
// turn changes, so proxies and browsers keep a quiet stream open.
const liveKeepalive = 15 * time.Second

// serveLive answers GET /admin/live: the turns in progress on this
// replica as server-sent events, a snapshot first, then one event per
// change (docs/http-api.md). A reader that falls behind is sent a fresh
// snapshot instead of the changes it missed: turns never wait for it.
func (s *Server) serveLive(c echo.Context) error {
	sub, first, err := s.live.Subscribe()
	if errors.Is(err, live.ErrTooManySubs) {
		return &echo.HTTPError{Code: http.StatusTooManyRequests, Message: "too many readers of /admin/live on this replica; close one"}
	}
	defer sub.Close()
	out, err := newSSESink(c.Response(), s.stateOf(c).cfg.WriteIdleTimeout)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	tick := time.NewTicker(s.liveKeepalive)
	defer tick.Stop()
	for msg := first; ; {
		if msg != nil {
			if err := out.Send(msg); err != nil {
				return nil // the reader left
			}
			msg = nil
		}
		select {
		case <-ctx.Done():
			return nil
		case msg = <-sub.C():
		case <-sub.Lagged():
			msg = sub.Resync()
		case <-tick.C:
			if err := out.Comment("keepalive"); err != nil {
				return nil
			}
		}
	}
}
