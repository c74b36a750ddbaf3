package proxy

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// limitBody guards the request body before any handler reads it:
// max_request_bytes (a declared length over the limit is refused at once,
// and a chunked upload that grows past it fails with *http.MaxBytesError,
// which toAPIError turns into 413), and read_idle_timeout and
// read_body_timeout (a body that stalls fails with a *bodyError, 408).
//
// It reads nothing itself: the key middlewares of the route groups run
// after it and before the handler, so a request without a valid key is
// answered before a byte of its body is read.
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Body == nil || r.Body == http.NoBody {
			return next(c)
		}
		cfg := s.stateOf(c).cfg
		limit := int64(cfg.MaxRequestBytes)
		body := newBodyReader(http.MaxBytesReader(c.Response(), r.Body, limit), http.NewResponseController(c.Response()),
			cfg.ReadIdleTimeout, cfg.ReadBodyTimeout)
		r.Body = body
		var err error
		if r.ContentLength > limit {
			err = &http.MaxBytesError{Limit: limit}
		} else {
			err = next(c)
		}
		if !body.sawEOF() && r.ProtoMajor == 1 && !c.Response().Committed {
			// Answered without reading the whole body (a refused key, a
			// declared length over the limit, a body that stalled or was
			// malformed). net/http would otherwise read up to 256KiB of
			// what is left before writing the answer, to keep the
			// connection, and a client that sends no more bytes would wait
			// for an answer that never comes (a 401 was seen held for
			// 240s). What is left on the wire cannot be trusted as the next
			// request either: close instead. HTTP/1 only: for HTTP/2, Go
			// takes "Connection: close" as a GOAWAY for every stream.
			c.Response().Header().Set("Connection", "close")
		}
		return err
	}
}
