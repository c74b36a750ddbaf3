package proxy

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"strings"

	"github.com/labstack/echo/v4"
)

// passThrough sends any other /v1/* request (embeddings, completions,
// audio, …) to the default upstream unchanged, except that the client's key
// is replaced by the upstream's. Streaming bodies are flushed as they
// arrive.
func (s *Server) passThrough(c echo.Context) error {
	def := s.stateOf(c).def
	if def == nil {
		return echo.NewHTTPError(http.StatusNotFound)
	}
	def.reverseProxy().ServeHTTP(c.Response(), c.Request())
	return nil
}

// reverseProxy builds the httputil.ReverseProxy for pass-through routes. It
// is cheap; building it per request keeps the upstream free of lazily
// initialised state.
func (u *upstream) reverseProxy() *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			out := pr.Out
			out.URL.Scheme = u.base.Scheme
			out.URL.Host = u.base.Host
			out.URL.Path = u.base.Path + strings.TrimPrefix(pr.In.URL.Path, "/v1")
			out.URL.RawPath = ""
			out.Host = u.base.Host
			out.Header.Del("Authorization")
			out.Header.Del("Api-Key")
			u.setHeaders(out.Header)
		},
		Transport: u.client.Transport,
		// -1 flushes after every write, so streamed bodies of any content
		// type (not only text/event-stream) arrive as they are produced.
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			err = cutCause(r.Context(), err)
			var mbe *http.MaxBytesError
			switch {
			case errors.Is(err, ErrShuttingDown), errors.As(err, &mbe):
			case errors.Is(err, context.Canceled):
				return
			default:
				u.log.LogAttrs(r.Context(), slog.LevelWarn, "pass-through", slog.String("upstream", u.cfg.Name), slog.String("path", r.URL.Path), slog.String("error", err.Error()))
				err = &upstreamFailure{upstream: u.cfg.Name, err: err}
			}
			ae := toAPIError(err)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(ae.Status)
			w.Write(ae.body())
		},
	}
}
