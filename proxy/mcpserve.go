package proxy

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/proxy/mcpserve"
	"github.com/toolstream/toolstream/toolhost"
)

// toolWatcher is a tool host that tells of changes to its tool set;
// toolhost.Host is one. /mcp's sessions hear of changes through it.
type toolWatcher interface {
	Watch(f func()) (stop func())
}

// newMCPServe builds /mcp's handler over the server tools, kept in line
// with the tool host when it can tell of changes, with its session caps
// (zero: the defaults) and the release it reports.
func (s *Server) newMCPServe(maxSessions, maxPerKey int, version string) {
	var tools mcpserve.Tools = noTools{}
	if s.tools != nil {
		tools = s.tools
	}
	opts := mcpserve.Options{Tools: usageCounted{tools, s}, Logger: s.log, Now: s.keys.Now,
		MaxSessions: maxSessions, MaxSessionsPerKey: maxPerKey, Version: version}
	if s.approvals != nil {
		opts.Approvals = s.approvals
	}
	s.mcpServe = mcpserve.New(opts)
	if w, ok := s.tools.(toolWatcher); ok {
		s.stopWatch = w.Watch(s.mcpServe.ToolsChanged)
	}
}

// serveMCP is POST (and GET, DELETE) /mcp: toolstream as an MCP server
// for the request's client key, whose tool scope filters tools/list and
// tools/call.
func (s *Server) serveMCP(c echo.Context) error {
	if err := readMCPBody(c.Request()); err != nil {
		return err
	}
	s.mcpServe.Serve(c.Response(), c.Request(), keyOf(c))
	return nil
}

// readMCPBody reads the whole body before the SDK sees the request, so
// that /mcp's body is under the same deadlines and answers as every
// other route's (limitBody: 408 naming read_idle_timeout, 413, 400).
// The SDK reads a body only after its own checks, and answers some
// requests (no Accept header, an unknown session) without reading it;
// net/http then waited, with no deadline at all, for the rest of a body
// that never came: a stalled POST held its connection past 70s.
func readMCPBody(r *http.Request) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return nil
}

// closeMCPServe ends /mcp's sessions and stops following the tool host.
func (s *Server) closeMCPServe() {
	if s.stopWatch != nil {
		s.stopWatch()
	}
	s.mcpServe.Close()
}

// noTools is the tool host of a proxy without server tools: /mcp lists
// nothing.
type noTools struct{}

func (noTools) Tools() []toolhost.Tool { return nil }

func (noTools) Execute(_ context.Context, call toolhost.Call) (toolhost.Result, error) {
	return toolhost.ErrorResult(call, toolhost.CodeToolNotFound, "no server tools"), nil
}
