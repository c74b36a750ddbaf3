package proxy

import (
	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/keys"
	"github.com/toolstream/toolstream/toolhost"
)

// checkModel is the model half of a key's scope, for every route that
// names a model: a model outside it is refused before anything is routed.
func checkModel(c echo.Context, model string) error {
	if k := keyOf(c); k != nil && !k.AllowsModel(model) {
		return &modelNotAllowed{key: k.Name, model: model}
	}
	return nil
}

// scopeTools is the tool half: of the proxy's server tools, those the
// key's turns are taught and may run. A tool outside the scope is, to the
// key's turns, a tool that does not exist: a call of it gets
// TOOL_NOT_FOUND, and a request that picks it by name is told there is no
// such tool.
func scopeTools(k *keys.Key, tools []toolhost.Tool) []toolhost.Tool {
	if k == nil || k.Tools == nil {
		return tools
	}
	out := make([]toolhost.Tool, 0, len(tools))
	for _, t := range tools {
		if k.AllowsTool(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// scopeUnavailable keeps, of the tools that cannot run now, those in the
// key's scope. A server never connected has no names to check: a scoped
// key does not hear of it, so a server's name never leaks past a scope.
func scopeUnavailable(k *keys.Key, down []loop.Unavailable) []loop.Unavailable {
	if k == nil || k.Tools == nil {
		return down
	}
	var out []loop.Unavailable
	for _, u := range down {
		var names []string
		for _, n := range u.Names {
			if k.AllowsTool(n) {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			out = append(out, loop.Unavailable{Names: names, Reason: u.Reason})
		}
	}
	return out
}

// holdToKey binds k's turn to the key as it stands while the turn runs:
// it ends before its next round once k is revoked or expired, and each
// round's tokens count against k's tokens_per_minute as the round ends.
func (s *Server) holdToKey(k *keys.Key, t *loop.Turn) {
	if k == nil {
		return
	}
	t.BeforeRound = func(int) error {
		if !k.Live(s.keys.Now()) {
			return errKeyRevoked
		}
		return nil
	}
	if lim := k.Limiter(); lim != nil {
		t.OnRoundUsage = func(prompt, completion int) {
			lim.Spend(s.keys.Now(), prompt+completion)
		}
	}
}
