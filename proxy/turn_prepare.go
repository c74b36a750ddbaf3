package proxy

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/proxy/keys"
	"github.com/toolstream/toolstream/proxy/upstream"
	"github.com/toolstream/toolstream/toolhost"
)

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
	s.addHosted(c.Request().Context(), st, turn, k, c.Path(), keyID)
	turn.KeyID = keyID
	turn.Origin = origin(keyID, c.Request().Header, req.Body, turn)
	if turn.Origin != nil {
		turn.Origin.Source = source
	}
	if err := s.addRemote(c.Request().Context(), st, turn, source == "responses"); err != nil {
		return nil, nil, err
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
	if len(req.MCPServers) == 0 { // else once their tools joined (addRemote)
		if err := checkApprove(t.Tools, o.Approve); err != nil {
			return nil, err
		}
	}
	t.Origin = &toolhost.Origin{Approve: o.Approve}
	if err := askTools(t, req.Ask); err != nil {
		return nil, err
	}
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
	bodyRetry := false
	if v := h.Get("X-Stainless-Retry-Count"); v != "" { // Atoi("") allocates its error
		n, err := strconv.Atoi(v)
		bodyRetry = err == nil && n >= 1
	}
	if k := h.Get("Idempotency-Key"); k != "" {
		o.Attempt, o.Keyed, o.Retry = toolhost.AttemptFromKey(keyID, k), true, true
		// Also the body's group, both ways: a retry that comes back
		// without the key (or an attempt that went out without one)
		// still matches by its body.
		o.BodyRetry = bodyRetry
		o.GroupByBody(keyID, body)
		return o
	}
	o.Retry = bodyRetry
	o.GroupByBody(keyID, body)
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
