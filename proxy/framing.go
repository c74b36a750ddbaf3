package proxy

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/proxy/internal/framing"
	"github.com/toolstream/toolstream/proxy/internal/handback"
)

// Listener returns the listener to serve hs on, and sets hs up for it.
//
// It refuses requests whose framing two servers could read differently
// (request smuggling): both Content-Length and Transfer-Encoding, a
// folded header line, a bare LF. net/http accepts all three and keeps the
// connection; a server in front of the proxy that frames the same bytes
// the other way would have the rest of a body answered as the next
// request (the probe saw 200 then 401 on one connection). Each is
// answered 400 and its connection closed, as RFC 9112 §6.1 asks.
//
// And it takes back the connections of streams that left their handler
// (detach.go), so that they carry their client's next request.
func Listener(hs *http.Server, ln net.Listener) net.Listener {
	back := handback.New(framing.Listener(ln), idleTimeout(hs))
	hs.ConnContext = chainConnContext(chainConnContext(hs.ConnContext, framing.ConnContext), back.ConnContext)
	return back
}

// idleTimeout is how long hs lets a kept connection wait for its next
// request, as net/http reckons it.
func idleTimeout(hs *http.Server) time.Duration {
	if hs.IdleTimeout != 0 {
		return hs.IdleTimeout
	}
	return hs.ReadTimeout
}

func chainConnContext(first, then func(ctx context.Context, c net.Conn) context.Context) func(ctx context.Context, c net.Conn) context.Context {
	if first == nil {
		return then
	}
	return func(ctx context.Context, c net.Conn) context.Context { return then(first(ctx, c), c) }
}

// refuseAmbiguousFraming answers a request on a connection that carried an
// ambiguous head with 400, and closes the connection: what follows on
// it cannot be trusted to be the request it looks like. It reads none of
// the body.
func (s *Server) refuseAmbiguousFraming(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		why := framing.Suspect(c.Request().Context())
		if why == "" {
			return next(c)
		}
		return s.refuseFraming(c, why)
	}
}

// refuseFraming answers a request whose framing is ambiguous for why. Its
// frame (the log call's) is not refuseAmbiguousFraming's, which every
// handler runs under.
func (s *Server) refuseFraming(c echo.Context, why string) error {
	c.Response().Header().Set("Connection", "close")
	s.log.Warn("request refused: ambiguous framing", "why", why, "remote", c.Request().RemoteAddr)
	return &clientError{code: "ambiguous_framing",
		msg: "the request's framing is ambiguous: it has " + why + "; send one Content-Length or Transfer-Encoding: chunked, and end each header line with CRLF"}
}
