package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/mcp"
)

// MCP servers a request names itself (docs/request-mcp-servers.md): a
// Responses mcp tool with a server_url, a Messages mcp_servers entry. Each
// is checked against auth.mcp_allow before anything is sent upstream,
// connected through the pool (one connection per URL and credentials,
// kept a few minutes, through the dial-time guard), and its tools join
// the turn as turn tools (toolhost.TurnTools): taught in every tool mode,
// run through the tool host with approvals, policies and the audit log,
// seen by this turn only.

// remoteMCP is the server's side of request-named MCP servers.
type remoteMCP struct {
	guard *toolhost.RemoteGuard
	pool  *mcp.Pool
}

func newRemoteMCP(allow []string, log *slog.Logger) *remoteMCP {
	g := toolhost.NewRemoteGuard(allow, log)
	return &remoteMCP{guard: g, pool: mcp.NewPool(mcp.PoolOptions{Guard: g, Log: log})}
}

// turnTooler is the tool host's side of turn tools (toolhost.Host).
type turnTooler interface {
	TurnTools(regs []toolhost.Registration) (*toolhost.TurnTools, error)
}

// serverUnavailable is a named server the proxy could not connect to or
// list: 424, as OpenAI answers it, naming the server and what failed,
// never an address.
type serverUnavailable struct {
	label, param string
	err          error
}

func (e *serverUnavailable) Error() string {
	return fmt.Sprintf("MCP server %q: %s", e.label, e.err.Error())
}

// addRemote connects the MCP servers t's request names and offers their
// tools for the turn. Every server is checked before any is connected; a
// server not allowed is refused with 400 mcp_server_not_allowed, one that
// cannot be reached with 424 mcp_server_unavailable, both before the
// first round. park says the route answers approvals in OpenAI's wire
// form (Responses): a call that needs one ends the response.
func (s *Server) addRemote(ctx context.Context, st *state, t *loop.Turn, park bool) error {
	servers := t.Request.MCPServers
	if len(servers) == 0 || t.Request.ToolChoiceNone {
		return nil
	}
	host, ok := s.tools.(turnTooler)
	if !ok || t.Origin == nil {
		return &clientError{code: "mcp_server_not_allowed", param: "tools", msg: "this proxy runs no server tools, so it cannot run an MCP server's either"}
	}
	for _, srv := range servers {
		if _, problem := s.remote.guard.Check(srv.URL); problem != "" {
			return &clientError{code: "mcp_server_not_allowed", param: srv.Param, msg: problem}
		}
	}
	taken := map[string]bool{}
	for _, tool := range t.Tools {
		taken[tool.Name] = true
	}
	var regs []toolhost.Registration
	for _, srv := range servers {
		lease, err := s.remote.pool.Get(ctx, srv.URL, srv.Headers)
		if err != nil {
			return s.unavailable(ctx, srv, err)
		}
		context.AfterFunc(ctx, lease.Release) // the turn is over when its request is
		regs = append(regs, remoteRegistrations(srv, lease, taken, st.cfg.Loop.ToolTimeout)...)
	}
	tt, err := host.TurnTools(regs)
	if err != nil {
		// One tool's schema would not compile: leave it out alone.
		if tt, err = host.TurnTools(s.validTools(ctx, host, regs)); err != nil {
			return err
		}
	}
	picked := map[string]bool{}
	for _, srv := range servers {
		picked[srv.Label] = srv.Allow != nil
	}
	for _, tool := range tt.Tools() {
		t.Tools = append(t.Tools, tool)
		if picked[toolhost.RequestServerOf(tool.Source)] {
			// Named one by one (allowed_tools, a toolset's configs):
			// never behind find_tools. A whole server's list may be
			// long, and is searched like the config's tools.
			t.AlwaysShown = append(t.AlwaysShown, tool.Name)
		}
	}
	t.Origin.Tools = tt
	t.Origin.Park = t.Origin.Park || park
	// toolstream.approve may name the servers' tools too.
	return checkApprove(t.Tools, t.Origin.Approve)
}

// validTools are the registrations whose input schema the tool host can
// validate against; a tool it cannot is left out of the turn, with a
// warning, as a configured server's is.
func (s *Server) validTools(ctx context.Context, host turnTooler, regs []toolhost.Registration) []toolhost.Registration {
	out := regs[:0:0]
	for _, r := range regs {
		if _, err := host.TurnTools([]toolhost.Registration{r}); err != nil {
			s.log.LogAttrs(ctx, slog.LevelWarn, "MCP tool skipped", slog.String("tool", r.Tool.Name),
				slog.String("mcp_server", toolhost.RequestServerOf(r.Tool.Source)), slog.String("error", err.Error()))
			continue
		}
		out = append(out, r)
	}
	return out
}

// unavailable is the error of a server that could not be used, logged
// with its detail (never the URL's query or the credentials).
func (s *Server) unavailable(ctx context.Context, srv loop.MCPServer, err error) error {
	var re *mcp.RemoteError
	if !errors.As(err, &re) {
		return err // the pool is closed: shutting down
	}
	s.log.LogAttrs(ctx, slog.LevelWarn, "request-named MCP server unavailable", slog.String("mcp_server", srv.Label),
		slog.String("reason", re.Error()), slog.String("detail", withoutQuery(re.Err.Error(), srv.URL)))
	return &serverUnavailable{label: srv.Label, param: srv.Param, err: re}
}

// withoutQuery is msg with url, where it quotes it, cut at its query and
// user info: a token may ride there.
func withoutQuery(msg, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return strings.ReplaceAll(msg, raw, "[the server's URL]")
	}
	safe := *u
	safe.RawQuery, safe.User, safe.Fragment = "", nil, ""
	return strings.ReplaceAll(msg, raw, safe.String())
}

// remoteRegistrations are srv's tools the request allows, as turn tools:
// named as the server names them, or label__name when the turn has that
// name already; approval always where the request's require_approval
// asks for it.
func remoteRegistrations(srv loop.MCPServer, lease *mcp.Lease, taken map[string]bool, timeout time.Duration) []toolhost.Registration {
	var regs []toolhost.Registration
	for _, rt := range lease.Tools() {
		if srv.Allow != nil && !srv.Allow(rt.Name) {
			continue
		}
		name := rt.Name
		if taken[name] {
			name = remoteToolName(srv.Label + "__" + rt.Name)
		}
		for i := 2; taken[name]; i++ {
			name = remoteToolName(fmt.Sprintf("%s__%s_%d", srv.Label, rt.Name, i))
		}
		taken[name] = true
		tool := toolhost.Tool{Name: name, Description: rt.Description, Parameters: slices.Clone(rt.Parameters),
			Source: toolhost.SourceRequestPrefix + srv.Label}
		if srv.Require != nil && srv.Require(rt.Name) {
			tool.Approval = toolhost.ApprovalAlways
		}
		regs = append(regs, toolhost.Registration{Tool: tool, Exec: lease.Executor(srv.Label, rt.Name, timeout)})
	}
	return regs
}

// notToolChars are what a function name may not hold (OpenAI's
// ^[a-zA-Z0-9_-]+$).
var notToolChars = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

func remoteToolName(s string) string { return notToolChars.ReplaceAllString(s, "_") }
