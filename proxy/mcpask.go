package proxy

import (
	"context"
	"fmt"
	"slices"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// askTools applies a request's ask in OpenAI's hosted-MCP form (a
// Responses mcp tool naming toolstream; docs/http-api.md): allowed_tools
// narrows the turn's server tools, within the key's scope (a name that is
// none of them is refused, as a typo would otherwise offer nothing);
// require_approval adds approval to calls of the tools it names, never
// removing a configured one; and a call that needs approval ends the
// response (Origin.Park), for the client's next request to decide.
func askTools(t *loop.Turn, ask *loop.ServerAsk) error {
	if ask == nil || t.Origin == nil {
		return nil
	}
	if ask.Allowed != nil {
		for _, n := range ask.Allowed {
			if !slices.ContainsFunc(t.Tools, func(tool toolhost.Tool) bool { return tool.Name == n }) {
				return &loop.RequestError{Param: "tools.allowed_tools", Message: fmt.Sprintf("allowed_tools: %q is not a server tool of this turn", n)}
			}
		}
		t.Tools = slices.DeleteFunc(slices.Clone(t.Tools), func(tool toolhost.Tool) bool { return !slices.Contains(ask.Allowed, tool.Name) })
		t.AlwaysShown = ask.Allowed
	}
	t.Origin.Park = true
	if ask.Require == nil {
		return nil
	}
	t.Origin.Require = map[string]bool{}
	for _, tool := range t.Tools {
		if ask.Require(tool.Name) {
			t.Origin.Require[tool.Name] = true
		}
	}
	return nil
}

// wireApprovals is what /v1/responses reads and decides of approvals in
// OpenAI's wire form: actions and audit records from storage, decisions
// through the tool host, which wakes a call waiting on one.
type wireApprovals struct {
	Records
	decide Approvals
}

func (w wireApprovals) Decide(ctx context.Context, id string, approve bool, d toolhost.Decider, reason string) (store.Action, error) {
	return w.decide.Decide(ctx, id, approve, d, reason)
}
