package proxy

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// limitBody enforces max_request_bytes: a declared length over the limit is
// refused at once, and any body is read through http.MaxBytesReader so a
// chunked upload that grows past it fails with *http.MaxBytesError, which
// toAPIError turns into 413.
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		limit := int64(s.stateOf(c).cfg.MaxRequestBytes)
		r := c.Request()
		if r.ContentLength > limit {
			return &http.MaxBytesError{Limit: limit}
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(c.Response(), r.Body, limit)
		}
		return next(c)
	}
}
