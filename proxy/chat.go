package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/proxy/internal/exchange"
	"github.com/toolstream/toolstream/proxy/keys"
	"github.com/toolstream/toolstream/proxy/upstream"
	"github.com/toolstream/toolstream/toolhost"
)

// chatProtocol is POST /v1/chat/completions on the turn route: the
// request is the turn's own, and the answer chat chunks, one
// chat.completion, or the upstream's own JSON when the turn has no server
// tools to run.
type chatProtocol struct{}

// Source names the protocol in the audit log.
func (chatProtocol) Source() string { return "chat" }

// Read parses the fields the proxy owns.
func (chatProtocol) Read(_ context.Context, in exchange.Input) (exchange.Turn, error) {
	req, err := loop.ParseRequest(in.Body)
	if err != nil {
		return nil, err
	}
	return &chatAnswer{req: req}, nil
}

// ErrorAnswer is err in OpenAI's shape.
func (chatProtocol) ErrorAnswer(_ error, ae exchange.Error) (int, []byte) {
	return ae.Status, ae.Body()
}

// chatAnswer is one chat request's side of its turn.
type chatAnswer struct {
	req *loop.Request
	col *loop.Collector // a non-streamed answer
}

func (a *chatAnswer) Request() *loop.Request { return a.req }
func (a *chatAnswer) Stream() bool           { return a.req.Stream }
func (a *chatAnswer) Relay() bool            { return true }

// Start gives the turn the stream itself, or a Collector of one
// chat.completion when w is nil.
func (a *chatAnswer) Start(t *loop.Turn, w exchange.Writer) loop.Sink {
	if w != nil {
		return w
	}
	a.col = &loop.Collector{Events: t.Loop.Display == config.DisplayEvents}
	return a.col
}

// Answer is the chat.completion of a turn that was not streamed.
func (a *chatAnswer) Answer() ([]byte, error) { return a.col.Completion(), nil }

// Fail ends a committed stream with one error event and no [DONE], so a
// cut stream never looks complete (docs/http-api.md).
func (a *chatAnswer) Fail(w exchange.Writer, _ error, ae exchange.Error, m exchange.Masker) error {
	return w.Send(m.Bytes(ae.Body()))
}

// prepareTurn routes a parsed chat request and gathers its turn: every
// client protocol's route runs its turns through here, so routing,
// overrides, tools and the audit origin (under source, the protocol's
// name) are decided once.
func (s *Server) prepareTurn(c echo.Context, st *state, req *loop.Request, source string) (*loop.Turn, *upstream.Client, error) {
	if err := checkModel(c, req.Model); err != nil {
		return nil, nil, err
	}
	if err := s.storageDown(); err != nil {
		return nil, nil, err
	}
	up, target, err := st.route(req.Model)
	var mnf *modelNotFound
	if errors.As(err, &mnf) {
		s.log.LogAttrs(c.Request().Context(), slog.LevelWarn, "no upstream for model", slog.String("model", req.Model),
			slog.String("hint", "add it to an upstream's models, or set default_upstream"))
	}
	if err != nil {
		return nil, nil, err
	}
	req.Rename(target)
	k := keyOf(c)
	turn, err := s.newTurn(st, req, up, c.Request().Header, k)
	if err != nil {
		return nil, nil, err
	}
	s.holdToKey(k, turn)
	keyID, _ := c.Get(ctxKeyID).(string)
	turn.KeyID = keyID
	turn.Origin = origin(keyID, c.Request().Header, req.Body, turn)
	if turn.Origin != nil {
		turn.Origin.Source = source
	}
	return turn, up, nil
}

// newTurn gathers what the turn runs with: the upstream, its tool mode,
// the server tools it may call and the loop settings, after the request's
// overrides (docs/configuration.md: the body's "toolstream" object, then the
// X-Toolstream-* headers).
func (s *Server) newTurn(st *state, req *loop.Request, up *upstream.Client, h http.Header, k *keys.Key) (*loop.Turn, error) {
	ho, err := headerOverrides(h)
	if err != nil {
		return nil, err
	}
	o := req.Overrides.Merge(ho)
	t := &loop.Turn{
		Request:       req,
		Upstream:      up,
		UpstreamName:  up.Name(),
		Format:        detect.Format(up.Config().TextFormat),
		ImplicitThink: up.Config().ImplicitThink,
		Loop:          st.cfg.Loop,
		Mode:          up.Config().ToolMode,
		Modes:         s.modes,
		History:       s.history,
	}
	t.Fallbacks = st.fallbacks(up, req.Model, o.Mode)
	if o.Mode != "" {
		t.Mode = o.Mode
	}
	if o.Display != "" {
		t.Loop.Display = o.Display
	}
	if s.tools == nil || req.ToolChoiceNone {
		return t, nil
	}
	t.Tools, t.Executor = scopeTools(k, s.tools.Tools()), s.tools
	if o.Tools != nil {
		if t.Tools, err = pickTools(t.Tools, o.Tools); err != nil {
			return nil, err
		}
		t.AlwaysShown = o.Tools // picked to be used, never hidden behind find_tools
	} else {
		// A request that picks its tools gets those; any other hears of
		// the tools a down MCP server took with it.
		t.Unavailable = scopeUnavailable(k, unavailable(s.mcpStates()))
	}
	if err := checkApprove(t.Tools, o.Approve); err != nil {
		return nil, err
	}
	t.Origin = &toolhost.Origin{Approve: o.Approve}
	return t, nil
}

// checkApprove refuses a pre-approval the proxy would not honour: a name
// that is not one of the turn's server tools, or a tool with approval:
// admin, which only an admin key can approve (docs/configuration.md).
func checkApprove(tools []toolhost.Tool, names []string) error {
	for _, n := range names {
		if n == "*" {
			continue
		}
		i := slices.IndexFunc(tools, func(t toolhost.Tool) bool { return t.Name == n })
		switch {
		case i < 0:
			return &loop.RequestError{Param: "toolstream.approve", Message: fmt.Sprintf("%q is not a server tool of this turn", n)}
		case tools[i].Approval == toolhost.ApprovalAdmin:
			return &loop.RequestError{Param: "toolstream.approve", Message: fmt.Sprintf("%q has approval: admin; only an admin key can approve its calls, one at a time", n)}
		}
	}
	return nil
}

// origin completes the turn's Origin: the client key, and the retry group
// (docs/webhooks.md). A request with an Idempotency-Key belongs to that key's
// group, and to its exact body's; any other to its body's group only. A
// request that says x-stainless-retry-count ≥ 1 is a retry of its body's
// group, one with a key a retry of its key's.
func origin(keyID string, h http.Header, body []byte, t *loop.Turn) *toolhost.Origin {
	o := t.Origin
	if o == nil { // no server tools: nothing to file or approve
		return nil
	}
	o.KeyID = keyID
	n, err := strconv.Atoi(h.Get("X-Stainless-Retry-Count"))
	bodyRetry := err == nil && n >= 1
	if k := h.Get("Idempotency-Key"); k != "" {
		o.Attempt, o.Keyed, o.Retry = toolhost.AttemptFromKey(keyID, k), true, true
		// Also the body's group, both ways: a retry that comes back
		// without the key (or an attempt that went out without one)
		// still matches by its body.
		o.Body, o.BodyRetry = toolhost.AttemptFromBody(keyID, body), bodyRetry
		return o
	}
	o.Attempt, o.Retry = toolhost.AttemptFromBody(keyID, body), bodyRetry
	return o
}

// pickTools keeps the named server tools, in the order the config lists
// them; a name that is not a server tool is the client's mistake.
func pickTools(all []toolhost.Tool, names []string) ([]toolhost.Tool, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []toolhost.Tool
	for _, t := range all {
		if want[t.Name] {
			out = append(out, t)
			delete(want, t.Name)
		}
	}
	for n := range want {
		return nil, &loop.RequestError{Param: "toolstream.tools", Message: fmt.Sprintf("%q is not a server tool of this proxy", n)}
	}
	return out, nil
}

// clientLeft reports whether a turn's error leaves nobody to tell: the
// client hung up. A turn cut by a shutdown is not that: its client is
// still there and is told.
func clientLeft(c echo.Context, err error) bool {
	return toAPIError(err).Status == statusClientClosed || c.Request().Context().Err() != nil && !errors.Is(err, ErrShuttingDown)
}

// logTurn writes the one info line per turn (docs/operations.md) and counts the
// turn in the metrics, its tokens under the request's client key. tool_calls
// counts every call, client calls included; calls_ok, calls_error,
// calls_denied, calls_cancelled and calls_client split it by status and
// appear when not zero. prompt_tokens and completion_tokens are the usage
// the upstream reported, whether or not the client asked for it;
// usage=unknown says it reported none (it refuses stream_options, or
// sends no usage).
func (s *Server) logTurn(c echo.Context, req *loop.Request, up *upstream.Client, rep loop.Report, err error, d time.Duration) {
	ctx := c.Request().Context()
	key := requestKey(c)
	status := turnStatus(err)
	s.metrics.turnDone(up.Name(), key, status, rep, s.hasTool)
	level := slog.LevelInfo
	if err != nil && status != turnClientClosed {
		level = slog.LevelWarn
	}
	if !s.log.Enabled(ctx, level) {
		return // log.level above it: nothing to build
	}
	// turn_id is what the turn's calls and approvals are filed under;
	// completion_id is the chunk id the client read.
	turnID := rep.TurnID
	if turnID == "" {
		turnID = rep.ID
	}
	attrs := make([]slog.Attr, 0, 24)
	if turnID != "" { // empty when the turn failed before any chunk
		attrs = append(attrs, slog.String("turn_id", turnID), slog.String("completion_id", rep.ID))
	}
	attrs = append(attrs,
		slog.String("model", req.Model),
		slog.String("upstream", up.Name()),
	)
	if rep.Upstream != "" {
		attrs = append(attrs, slog.String("fallback", rep.Upstream))
	}
	if key != "" {
		attrs = append(attrs, slog.String("key", key))
	}
	attrs = append(attrs,
		slog.Int("rounds", rep.Rounds),
		slog.Int("tool_calls", len(rep.Calls)),
	)
	attrs = append(attrs, callCounts(rep.Calls)...)
	if rep.UsageKnown {
		attrs = append(attrs, slog.Int("prompt_tokens", rep.PromptTokens), slog.Int("completion_tokens", rep.CompletionTokens))
	} else {
		attrs = append(attrs, slog.String("usage", "unknown"))
	}
	attrs = append(attrs,
		slog.String("finish", rep.Finish),
		slog.Int64("duration_ms", d.Milliseconds()),
	)
	if level == slog.LevelWarn {
		attrs = append(attrs, slog.Int("code", toAPIError(err).Status), slog.String("error", err.Error()))
	}
	attrs = append(attrs, slog.String("status", status))
	s.log.LogAttrs(ctx, level, "turn", attrs...)
}

// requestKey is the id of the client key the request came with; empty
// when the proxy runs without keys.
func requestKey(c echo.Context) string {
	k, _ := c.Get(ctxKeyID).(string)
	return k
}

// turnStatus is how a turn ended, in the words of the log line and of
// toolstream_turns_total.
func turnStatus(err error) string {
	if err == nil {
		return turnOK
	}
	switch ae := toAPIError(err); {
	case ae.Status == statusClientClosed:
		return turnClientClosed
	case ae.Code == "shutting_down": // docs/operations.md: cut by a graceful shutdown
		return turnShutdown
	}
	return turnError
}

// callCounts counts a turn's calls by status, as calls_<status> attributes
// in a fixed order, leaving out the statuses no call had.
func callCounts(calls []loop.CallSummary) []slog.Attr {
	if len(calls) == 0 {
		return nil
	}
	statuses := []string{toolhost.StatusOK, toolhost.StatusError, toolhost.StatusDenied, toolhost.StatusCancelled, loop.StatusClient}
	counts := make([]int, len(statuses))
	for _, c := range calls {
		st := c.Status
		if !c.Client {
			st = callStatus(st)
		}
		for i, s := range statuses {
			if st == s {
				counts[i]++
			}
		}
	}
	var attrs []slog.Attr
	for i, n := range counts {
		if n > 0 {
			attrs = append(attrs, slog.Int("calls_"+statuses[i], n))
		}
	}
	return attrs
}

// hasTool reports whether name is a server tool of the proxy, so that
// metrics label calls of any other name "unknown".
func (s *Server) hasTool(name string) bool {
	if s.tools == nil {
		return false
	}
	for _, t := range s.tools.Tools() {
		if t.Name == name {
			return true
		}
	}
	return false
}
