package proxy

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/loop"
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
		FlushInterval:  -1,
		ModifyResponse: u.passError,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			err = cutCause(r.Context(), err)
			var (
				mbe *http.MaxBytesError
				ue  *loop.UpstreamError
			)
			switch {
			case errors.Is(err, ErrShuttingDown), errors.As(err, &mbe):
			case errors.Is(err, context.Canceled):
				return
			default:
				u.log.LogAttrs(r.Context(), slog.LevelWarn, "pass-through", slog.String("upstream", u.cfg.Name), slog.String("path", r.URL.Path), slog.String("error", err.Error()))
				if !errors.As(err, &ue) {
					err = &upstreamFailure{upstream: u.cfg.Name, err: err}
				}
			}
			ae := toAPIError(err)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(ae.Status)
			w.Write(u.mask.Bytes(ae.body()))
		},
	}
}

// passError looks at a pass-through answer that is an error: one the proxy
// explains (a refused key, a base_url without /v1) becomes an error for
// the ErrorHandler to answer with; any other has the config's secrets
// masked in its body and goes on. Successful answers pass untouched: they
// may be streams or audio, and an upstream does not put its key in them.
func (u *upstream) passError(resp *http.Response) error {
	if resp.StatusCode < 400 {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	if err != nil {
		return err
	}
	rel := strings.TrimPrefix(resp.Request.URL.Path, u.base.Path)
	ue := &loop.UpstreamError{Upstream: u.cfg.Name, Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: b}
	// The client's Accept-Encoding went to the upstream, so the body may
	// be compressed; masking needs the text.
	readable := true
	switch resp.Header.Get("Content-Encoding") {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err == nil {
			ue.Body, err = io.ReadAll(io.LimitReader(zr, maxErrorBody))
		}
		readable = err == nil
		resp.Header.Del("Content-Encoding")
	default:
		readable = false
	}
	if err := u.explain(ue, rel); err != ue {
		return err
	}
	if !readable {
		// Not relayed, as it cannot be masked: the client gets the
		// status in OpenAI's shape.
		ue.Body = nil
		return ue
	}
	b = u.mask.Bytes(ue.Body)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
	return nil
}
