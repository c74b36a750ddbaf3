package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/jsonread"
	"github.com/toolstream/toolstream/proxy/internal/exchange"
	"github.com/toolstream/toolstream/proxy/responses"
	"github.com/toolstream/toolstream/proxy/upstream"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/clip"
	"github.com/toolstream/toolstream/toolhost/store"
)

// statusClientClosed is nginx's and Caddy's status for a client that hung
// up; it is logged, never sent.
const statusClientClosed = exchange.StatusClientClosed

// apiError is an error in OpenAI's shape (exchange.Error): every
// protocol's error answer is made from it.
type apiError = exchange.Error

// clientError is a request the client must change: a 400 with its own
// code and, when it names a field, param.
type clientError struct{ code, param, msg string }

func (e *clientError) Error() string { return e.msg }

// modelNotFound is a model no upstream is configured to serve.
type modelNotFound struct{ model string }

func (e *modelNotFound) Error() string {
	return fmt.Sprintf("the model `%s` does not exist or you do not have access to it", e.model)
}

// errUnauthorized is a missing or wrong client key.
var errUnauthorized = exchange.ErrUnauthorized

// errUnauthorizedSinceRuntimeKey is a missing or wrong client key on a
// proxy that was open until an admin created the first runtime key.
var errUnauthorizedSinceRuntimeKey = fmt.Errorf("%w since a runtime key exists", errUnauthorized)

// toAPIError is the one place that decides how an error looks to a client:
// its status, type and code (Caddy's statusError, for OpenAI's shape).
func toAPIError(err error) apiError {
	// In order: the first that knows err decides.
	kinds := [...]func(error) (apiError, bool){proxyError, requestError, upstreamError, echoError, keyError, adminError}
	for _, kind := range kinds {
		if ae, ok := kind(err); ok {
			return ae
		}
	}
	// What is left is the proxy's own failure. Its Go error names
	// internals (storage keys, paths) that are not the client's to read:
	// errorHandler logs it.
	return apiError{Status: http.StatusInternalServerError, Type: "server_error", Message: "internal error; the proxy's log has the details"}
}

// proxyError maps the proxy's own states: shutting down, a client gone,
// admin routes, actions, storage and the client key.
func proxyError(err error) (apiError, bool) {
	var (
		de  *decidedError
		nfe *notFoundError
	)
	switch {
	case errors.Is(err, ErrShuttingDown):
		// Before context.Canceled: a turn cut by a shutdown surfaces as a
		// cancellation too, but its client is still there. Retrying is
		// fine: another replica, or this one restarted, will answer.
		return apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "shutting_down",
			Message: "the proxy is shutting down; the request was ended before it finished"}, true
	case errors.Is(err, context.Canceled), errors.Is(err, loop.ErrClientGone):
		return apiError{Status: statusClientClosed, Type: "invalid_request_error", Code: "client_closed_request", Message: "client closed the request"}, true
	case errors.Is(err, errNoAdminKeys):
		return apiError{Status: http.StatusForbidden, Type: "permission_error", Code: "admin_disabled",
			Message: "no admin keys are configured (auth.admin_keys), so the admin routes are closed"}, true
	case errors.Is(err, errAdminOnly), errors.Is(err, toolhost.ErrAdminOnly):
		return apiError{Status: http.StatusForbidden, Type: "permission_error", Code: "admin_key_required", Message: "this needs an admin key (auth.admin_keys)"}, true
	case errors.Is(err, toolhost.ErrActionNotFound):
		return apiError{Status: http.StatusNotFound, Type: "not_found_error", Code: "action_not_found", Message: "no such action (or it is another key's)"}, true
	case errors.As(err, &de):
		return apiError{Status: http.StatusConflict, Type: "invalid_request_error", Code: "action_already_decided", Message: de.Error()}, true
	case errors.As(err, &nfe):
		return apiError{Status: http.StatusNotFound, Type: "not_found_error", Code: "not_found", Message: nfe.Error()}, true
	case errors.Is(err, store.ErrUnavailable):
		return storageUnavailable(), true
	case errors.Is(err, errNoStorage):
		return apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "no_storage", Message: "this proxy runs without storage"}, true
	case errors.Is(err, errUnauthorizedSinceRuntimeKey):
		return apiError{Status: http.StatusUnauthorized, Type: "authentication_error", Code: "invalid_api_key",
			Message: "Incorrect or missing API key. This proxy needs a client key since one was created with POST /admin/keys (it is open only while no key exists); send it as \"Authorization: Bearer <key>\", or delete the runtime keys to open it again."}, true
	case errors.Is(err, errUnauthorized):
		return apiError{Status: http.StatusUnauthorized, Type: "authentication_error", Code: "invalid_api_key",
			Message: "Incorrect or missing API key. Send it as \"Authorization: Bearer <key>\"."}, true
	}
	return apiError{}, false
}

// requestError maps a request the client must change.
func requestError(err error) (apiError, bool) {
	var (
		mbe *http.MaxBytesError
		be  *bodyError
		jbe *jsonread.BodyError
		pe  *pathError
		ce  *clientError
		tre *loop.ToolsRejectedError
		re  *loop.RequestError
		rqe *responses.Error
		pnf *responses.PreviousNotFoundError
		mnf *modelNotFound
		sue *serverUnavailable
	)
	switch {
	case errors.As(err, &mbe):
		return tooLarge(mbe.Limit), true
	case errors.As(err, &be):
		if be.key != "" {
			return apiError{Status: http.StatusRequestTimeout, Type: "invalid_request_error", Code: "request_timeout", Message: be.Error()}, true
		}
		return apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: "invalid_body", Message: be.Error()}, true
	case errors.As(err, &jbe):
		if jbe.Limit > 0 {
			return apiError{Status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error", Code: "request_too_large", Message: jbe.Error()}, true
		}
		return apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: jbe.Key, Message: jbe.Error()}, true
	case errors.As(err, &pe):
		return apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: "invalid_path", Message: pe.Error()}, true
	case errors.As(err, &ce):
		return apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: ce.code, Param: ce.param, Message: ce.msg}, true
	case errors.As(err, &tre):
		var ue *loop.UpstreamError
		status := http.StatusBadRequest
		if errors.As(tre.Err, &ue) && ue.Status != 0 {
			status = ue.Status
		}
		return apiError{Status: status, Type: "invalid_request_error", Code: "tools_not_supported", Param: "tools", Message: tre.Error()}, true
	case errors.As(err, &re):
		return apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: re.Param, Message: re.Message}, true
	case errors.As(err, &rqe):
		return apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: rqe.Code, Param: rqe.Param, Message: rqe.Message}, true
	case errors.As(err, &pnf):
		return apiError{Status: http.StatusNotFound, Type: "invalid_request_error", Code: "previous_response_not_found", Param: "previous_response_id", Message: pnf.Error()}, true
	case errors.As(err, &mnf):
		return apiError{Status: http.StatusNotFound, Type: "invalid_request_error", Code: "model_not_found", Param: "model", Message: mnf.Error()}, true
	case errors.As(err, &sue):
		return apiError{Status: http.StatusFailedDependency, Type: "invalid_request_error", Code: "mcp_server_unavailable", Param: sue.param, Message: sue.Error()}, true
	}
	return apiError{}, false
}

// upstreamError maps an upstream that refused, failed or could not be
// reached.
func upstreamError(err error) (apiError, bool) {
	var (
		uae *upstream.AuthError
		upe *upstream.PathError
		ate *upstream.AnswerTooLargeError
		bse *upstream.BadStatusError
		ue  *loop.UpstreamError
		se  *loop.StreamError
		uf  *upstream.Failure
	)
	switch {
	case errors.As(err, &uae):
		return apiError{Status: http.StatusBadGateway, Type: "api_error", Code: "upstream_auth_failed", Message: uae.Message()}, true
	case errors.As(err, &upe):
		return apiError{Status: http.StatusNotFound, Type: "not_found_error", Code: "upstream_not_found", Message: upe.Message(), Header: upe.UE.Header}, true
	case errors.As(err, &ate):
		return apiError{Status: http.StatusBadGateway, Type: "server_error", Code: "upstream_answer_too_large", Message: ate.Error()}, true
	case errors.As(err, &bse):
		return apiError{Status: http.StatusBadGateway, Type: "server_error", Code: "upstream_bad_status",
			Message: fmt.Sprintf("upstream %s answered %d where 200 was expected", bse.Upstream, bse.Status)}, true
	case errors.As(err, &ue):
		return fromUpstream(ue), true
	case errors.As(err, &se):
		return fromStream(se), true
	case errors.As(err, &uf):
		msg := fmt.Sprintf("upstream %s: %s", uf.Upstream, netReason(uf.Err, "could not be reached"))
		if errors.Is(uf.Err, context.DeadlineExceeded) || isTimeout(uf.Err) {
			return apiError{Status: http.StatusGatewayTimeout, Type: "server_error", Code: "upstream_timeout", Message: msg}, true
		}
		return apiError{Status: http.StatusBadGateway, Type: "server_error", Code: "upstream_unavailable", Message: msg}, true
	}
	return apiError{}, false
}

// fromStream maps an upstream stream that broke or ran out of time.
func fromStream(se *loop.StreamError) apiError {
	if errors.Is(se.Err, context.DeadlineExceeded) {
		return apiError{Status: http.StatusGatewayTimeout, Type: "server_error", Code: "upstream_timeout",
			Message: fmt.Sprintf("upstream %s did not finish the round within its timeout", se.Upstream)}
	}
	msg := fmt.Sprintf("upstream %s: %s", se.Upstream, se.Reason)
	if se.Err != nil {
		msg += ": " + netReason(se.Err, "the connection failed")
	}
	return apiError{Status: http.StatusBadGateway, Type: "server_error", Code: "upstream_error", Message: msg}
}

// echoError maps echo's own errors (an unknown route, a wrong method).
func echoError(err error) (apiError, bool) {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return fromEcho(he), true
	}
	return apiError{}, false
}

// adminError maps the errors of the runtime tools of toolhost.
func adminError(err error) (apiError, bool) {
	var (
		spec *toolhost.SpecError
		ro   *toolhost.ReadOnlyError
	)
	switch {
	case errors.As(err, &spec):
		ae := apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: "invalid_tool", Message: spec.Error()}
		if len(spec.Problems) > 0 {
			ae.Param = spec.Problems[0].Path
		}
		return ae, true
	case errors.As(err, &ro):
		msg := fmt.Sprintf("tool %q comes from the config file; config tools are read-only: edit the config file and reload", ro.Name)
		if server, ok := strings.CutPrefix(ro.Source, toolhost.SourceMCPPrefix); ok {
			msg = fmt.Sprintf("tool %q comes from MCP server %q; MCP tools are read-only: change the server or its mcp_servers entry and reload", ro.Name, server)
		}
		return apiError{Status: http.StatusConflict, Type: "invalid_request_error", Code: "tool_read_only", Param: "name", Message: msg}, true
	case errors.Is(err, toolhost.ErrToolExists):
		return apiError{Status: http.StatusConflict, Type: "invalid_request_error", Code: "tool_exists", Param: "name",
			Message: "a tool of that name exists; PUT /admin/tools/{name} replaces a runtime tool"}, true
	case errors.Is(err, toolhost.ErrToolNotFound):
		return apiError{Status: http.StatusNotFound, Type: "invalid_request_error", Code: "tool_not_found",
			Message: "no tool of that name; GET /admin/tools lists them"}, true
	}
	return apiError{}, false
}

// netReason says in a few words what went wrong talking to an upstream, or
// fallback when it cannot tell. The Go error it reads names addresses and ports
// ("dial tcp 10.0.0.7:11434: connect: connection refused"), which clients must
// not read (docs/http-api.md); the log keeps the whole error.
func netReason(err error, fallback string) string {
	return toolhost.NetReason(err, fallback)
}

func tooLarge(limit int64) apiError {
	return apiError{Status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error", Code: "request_too_large",
		Message: fmt.Sprintf("request body is larger than the %d bytes this proxy accepts (max_request_bytes)", limit)}
}

// fromUpstream relays an upstream's error. An OpenAI-shaped body goes out as it
// came (docs/http-api.md); anything else is wrapped so the client still gets
// OpenAI's shape, with the upstream's status.
func fromUpstream(ue *loop.UpstreamError) apiError {
	ae := fromUpstreamBody(ue)
	ae.Header = ue.Header
	return ae
}

func fromUpstreamBody(ue *loop.UpstreamError) apiError {
	status := ue.Status
	if status == 0 {
		status = http.StatusBadGateway
	}
	v, err := fastjson.ParseBytes(ue.Body)
	if err == nil {
		if e := v.Get("error"); e != nil && e.Type() == fastjson.TypeObject && e.Exists("message") {
			return apiError{Status: status, Raw: ue.Body}
		}
		// vLLM and some others answer {"object":"error","message":…}.
		if m := v.GetStringBytes("message"); len(m) > 0 {
			return apiError{Status: status, Type: upstreamType(status), Message: string(m)}
		}
		// A bare string error: {"error":"…"} (Ollama's native API style).
		if m := v.GetStringBytes("error"); len(m) > 0 {
			return apiError{Status: status, Type: upstreamType(status), Message: string(m)}
		}
	}
	msg := fmt.Sprintf("upstream %s answered %d", ue.Upstream, ue.Status)
	if len(ue.Body) > 0 {
		msg += ": " + clip.Excerpt(ue.Body, 300)
	}
	return apiError{Status: status, Type: upstreamType(status), Message: msg}
}

// upstreamType is OpenAI's error type for a status.
func upstreamType(status int) string { return exchange.UpstreamType(status) }

func fromEcho(he *echo.HTTPError) apiError {
	msg := http.StatusText(he.Code)
	if s, ok := he.Message.(string); ok && s != "" {
		msg = s
	}
	switch he.Code {
	case http.StatusNotFound:
		return apiError{Status: he.Code, Type: "invalid_request_error", Code: "unknown_url", Message: "Unknown request URL. See docs/http-api.md in the toolstream repository for the routes it serves."}
	case http.StatusMethodNotAllowed:
		return apiError{Status: he.Code, Type: "invalid_request_error", Code: "method_not_allowed", Message: msg}
	case http.StatusRequestEntityTooLarge:
		return apiError{Status: he.Code, Type: "invalid_request_error", Code: "request_too_large", Message: msg}
	case http.StatusUnauthorized:
		return toAPIError(errUnauthorized)
	}
	typ := "invalid_request_error"
	if he.Code >= 500 {
		typ = "server_error"
	}
	return apiError{Status: he.Code, Type: typ, Message: msg}
}

// errorHandler replaces echo's default, which writes {"message": …}, so that
// every error (echo's own 404 and 405 included) has the shape of the
// route's protocol: OpenAI's, or Anthropic's on the Messages route, whose
// clients read only that, the key middleware's and the body limit's errors
// included. The config's secrets are masked wherever the body came from.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	ae := toAPIError(err)
	if ae.Status == http.StatusInternalServerError {
		s.log.Error("internal error", "method", c.Request().Method, "path", c.Request().URL.Path, "error", err.Error())
	}
	status, body := s.protocolOf(c).ErrorAnswer(err, ae)
	if status == statusClientClosed {
		return
	}
	s.logRefusal(c, err, status, ae)
	for k, vs := range ae.Header {
		c.Response().Header()[k] = vs
	}
	_ = c.JSONBlob(status, s.stateOf(c).mask.Bytes(body))
}

// logRefusal writes a warn line for a 4xx the proxy itself answers a
// turn (POST on a turn route): route, key, status, code and param, so a
// client that is refused — an agent sending something new — leaves a
// trace. An upstream's own 4xx is not the proxy's refusal: it is on the
// turn's line.
func (s *Server) logRefusal(c echo.Context, err error, status int, ae apiError) {
	if status < 400 || status >= 500 || c.Request().Method != http.MethodPost {
		return
	}
	if _, turn := s.protocols[c.Path()]; !turn {
		return
	}
	var (
		ue  *loop.UpstreamError
		tre *loop.ToolsRejectedError
	)
	if errors.As(err, &ue) && !errors.As(err, &tre) {
		return
	}
	s.log.LogAttrs(c.Request().Context(), slog.LevelWarn, "request refused",
		slog.String("route", c.Path()), slog.String("key", requestKey(c)), slog.Int("status", status),
		slog.String("code", ae.Code), slog.String("param", ae.Param))
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
