package proxy

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/jsonread"
	"github.com/toolstream/toolstream/proxy/upstream"
	"github.com/toolstream/toolstream/toolhost/mask"
)

// passThrough sends any other /v1/* request (embeddings, completions,
// audio, …) to the default upstream unchanged, except that the client's
// credentials are replaced by the upstream's. Streaming bodies are flushed
// as they arrive.
func (s *Server) passThrough(c echo.Context) error {
	def := s.stateOf(c).def
	if def == nil {
		return echo.NewHTTPError(http.StatusNotFound)
	}
	rel, err := passPath(c.Request().URL)
	if err != nil {
		return err
	}
	body, _ := c.Request().Body.(*bodyReader) // nil without a body
	if readsBody(c) {
		// Read whole (bounded by max_request_bytes) by the reader of
		// every route, and sent on from memory: the upstream gets the
		// body whose model the key's scope was checked against, with no
		// second "model" for it to take instead.
		data, top, err := s.readJSON(c, false)
		if err != nil {
			return err
		}
		if err := checkModel(c, modelOf(top)); err != nil {
			return err
		}
		r := c.Request()
		r.Body, r.ContentLength, r.TransferEncoding = io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
		body = nil
	}
	reverseProxy(def, rel, body, s.stateOf(c).mask, s.log).ServeHTTP(c.Response(), c.Request())
	return nil
}

// readsBody says whether a pass-through request's body is read before it
// is sent: a JSON body (embeddings, completions, moderations), and any
// body under a key limited to some models, which must name its model in
// JSON. Others (audio, files) stream through as they arrive.
func readsBody(c echo.Context) bool {
	r := c.Request()
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Body == nil || r.Body == http.NoBody {
		return false
	}
	if k := keyOf(c); k != nil && k.Models != nil {
		return true
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// modelOf is a body's "model" string; "" when it has none.
func modelOf(top jsonread.Object) string {
	var m string
	if raw := top["model"]; len(raw) > 0 && raw[0] == '"' {
		_ = json.Unmarshal(raw, &m)
	}
	return m
}

// clientCredentials are the headers a client may authenticate with, to us
// or to anyone. None is ever forwarded: an upstream gets its own api_key
// and configured headers only. x-api-key is how Anthropic's SDK sends a
// key, and a client that sends its toolstream key that way must not hand
// it to a model server.
var clientCredentials = [...]string{"Authorization", "Api-Key", "X-Api-Key", "Cookie", "Proxy-Authorization"}

// reverseProxy builds the httputil.ReverseProxy that sends one
// pass-through request to u, at rel under base_url's path, masking mask's
// secrets in the errors it relays. body is the request's body, whose read
// failures are the client's, not the upstream's. It is cheap; building it per request
// keeps the upstream free of lazily initialised state.
func reverseProxy(u *upstream.Client, rel relPath, body *bodyReader, mask *mask.Masker, log *slog.Logger) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			out := pr.Out
			base := u.Base()
			out.URL.Scheme = base.Scheme
			out.URL.Host = base.Host
			out.URL.Path = rel.under(base.Path)
			out.URL.RawPath = ""
			out.URL.RawQuery = joinQuery(base.RawQuery, pr.In.URL.RawQuery)
			out.Host = base.Host
			for _, h := range clientCredentials {
				out.Header.Del(h)
			}
			u.SetHeaders(out.Header)
		},
		Transport: u.Transport(),
		// -1 flushes after every write, so streamed bodies of any content
		// type (not only text/event-stream) arrive as they are produced.
		FlushInterval:  -1,
		ModifyResponse: func(resp *http.Response) error { return passError(u, mask, resp) },
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			err = cutCause(r.Context(), err)
			if body != nil && body.failure() != nil {
				// The client's body failed, not the upstream: the
				// Transport reports it as a failed write to the upstream.
				err = body.failure()
			}
			var (
				be  *bodyError
				mbe *http.MaxBytesError
				ue  *loop.UpstreamError
			)
			switch {
			case errors.Is(err, ErrShuttingDown), errors.As(err, &mbe), errors.As(err, &be):
			case errors.Is(err, context.Canceled):
				return
			default:
				log.LogAttrs(r.Context(), slog.LevelWarn, "pass-through", slog.String("upstream", u.Name()), slog.String("path", r.URL.Path), slog.String("error", err.Error()))
				if !errors.As(err, &ue) {
					err = &upstream.Failure{Upstream: u.Name(), Err: err}
				}
			}
			ae := toAPIError(err)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(ae.Status)
			w.Write(mask.Bytes(ae.Body()))
		},
	}
}

// passError looks at a pass-through answer that is an error: one the proxy
// explains (a refused key, a base_url without /v1) becomes an error for
// the ErrorHandler to answer with; any other has the config's secrets
// masked in its body and goes on. Successful answers pass untouched: they
// may be streams or audio, and an upstream does not put its key in them.
func passError(u *upstream.Client, mask *mask.Masker, resp *http.Response) error {
	if resp.StatusCode < 400 {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, upstream.MaxErrorBody))
	resp.Body.Close()
	if err != nil {
		return err
	}
	rel := strings.TrimPrefix(resp.Request.URL.Path, u.Base().Path)
	ue := &loop.UpstreamError{Upstream: u.Name(), Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: b}
	// The client's Accept-Encoding went to the upstream, so the body may
	// be compressed; masking needs the text.
	readable := true
	switch resp.Header.Get("Content-Encoding") {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err == nil {
			ue.Body, err = io.ReadAll(io.LimitReader(zr, upstream.MaxErrorBody))
		}
		readable = err == nil
		resp.Header.Del("Content-Encoding")
	default:
		readable = false
	}
	if err := u.Explain(ue, rel); err != ue {
		return err
	}
	if !readable {
		// Not relayed, as it cannot be masked: the client gets the
		// status in OpenAI's shape.
		ue.Body = nil
		return ue
	}
	b = mask.Bytes(ue.Body)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
	return nil
}

// joinQuery is base_url's query followed by the request's: a base_url
// query (Azure's api-version) is kept on every route.
func joinQuery(base, req string) string {
	switch {
	case base == "":
		return req
	case req == "":
		return base
	}
	return base + "&" + req
}
