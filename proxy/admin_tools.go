package proxy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// RuntimeTools is what the admin API (/admin/tools) needs of the tool
// host: every tool for the list, and runtime tools to create, replace and
// delete. toolhost.Host implements it.
type RuntimeTools interface {
	// Tools lists every registered tool, whatever its source.
	Tools() []toolhost.Tool
	// RuntimeTool returns a runtime tool as registered, secrets included.
	RuntimeTool(name string) (config.Tool, bool)
	CreateRuntimeTool(ctx context.Context, spec json.RawMessage) (toolhost.Tool, error)
	PutRuntimeTool(ctx context.Context, name string, spec json.RawMessage) (t toolhost.Tool, created bool, err error)
	DeleteRuntimeTool(ctx context.Context, name string) error
}

// adminToolRoutes registers /admin/tools on the admin group.
func (s *Server) adminToolRoutes(g *echo.Group) {
	g.GET("/tools", s.listTools)
	g.POST("/tools", s.createTool)
	g.GET("/tools/:name", s.getTool)
	g.PUT("/tools/:name", s.putTool)
	g.DELETE("/tools/:name", s.deleteTool)
}

// toolView is a tool as /admin/tools shows it: the config tools entry's
// shape, with the source, and secrets left out.
type toolView struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Approval    string          `json:"approval"`
	Idempotent  bool            `json:"idempotent"`
	Redact      []string        `json:"redact,omitempty"`
	// Source is "config", "runtime", "mcp:<server>" or "openapi:<name>".
	Source string `json:"source"`
	// ServerState is an MCP tool's server's status ("up"; a server that
	// is down has no tools listed, but is in the list's mcp_servers).
	ServerState string `json:"server_state,omitempty"`
	// Webhook and MaxResultBytes are shown for runtime tools.
	Webhook        *webhookView `json:"webhook,omitempty"`
	MaxResultBytes string       `json:"max_result_bytes,omitempty"`
}

// webhookView shows a runtime webhook without its secrets: header names
// only, "[redacted]" for a secret, a URL's password masked.
type webhookView struct {
	URL     string   `json:"url"`
	Headers []string `json:"headers,omitempty"`
	Secret  string   `json:"secret,omitempty"`
	// Timeout is empty when the tool uses loop.tool_timeout.
	Timeout string `json:"timeout,omitempty"`
}

func (s *Server) toolView(t toolhost.Tool, states []MCPServerState) toolView {
	v := toolView{
		Name: t.Name, Description: t.Description, Parameters: t.Parameters,
		Approval: t.Approval, Idempotent: t.Idempotent, Redact: t.Redact, Source: t.Source,
		ServerState: mcpServerState(t, states),
	}
	if t.Source != toolhost.SourceRuntime {
		return v
	}
	ct, ok := s.runtime.RuntimeTool(t.Name)
	if !ok || ct.Webhook == nil {
		return v
	}
	w := &webhookView{URL: ct.Webhook.URL, Secret: ct.Webhook.Secret.String()}
	if u, err := url.Parse(w.URL); err == nil {
		w.URL = u.Redacted()
	}
	for name := range ct.Webhook.Headers {
		w.Headers = append(w.Headers, name)
	}
	slices.Sort(w.Headers)
	if ct.Webhook.Timeout > 0 {
		w.Timeout = ct.Webhook.Timeout.String()
	}
	v.Webhook, v.MaxResultBytes = w, ct.MaxResultBytes.String()
	return v
}

// lookupTool finds a registered tool by name.
func (s *Server) lookupTool(name string) (toolhost.Tool, bool) {
	for _, t := range s.runtime.Tools() {
		if t.Name == name {
			return t, true
		}
	}
	return toolhost.Tool{}, false
}

// listTools answers GET /admin/tools: every tool, in the order the model
// is taught them (config, then runtime and MCP); with ?key=NAME only the
// tools that key's turns see.
func (s *Server) listTools(c echo.Context) error {
	tools := s.runtime.Tools()
	if name := c.QueryParam("key"); name != "" {
		k, _, ok := s.keys.ByName(name)
		if !ok {
			return errKeyNotFound
		}
		tools = scopeTools(k, tools)
	}
	states := s.mcpStates()
	data := make([]toolView, 0, len(tools))
	for _, t := range tools {
		data = append(data, s.toolView(t, states))
	}
	return c.JSON(http.StatusOK, struct {
		Object string     `json:"object"`
		Data   []toolView `json:"data"`
		// MCPServers lists every configured MCP server, so one that is
		// down (and so has no tools above) is seen too.
		MCPServers []MCPServerState `json:"mcp_servers,omitempty"`
	}{"list", data, states})
}

func (s *Server) getTool(c echo.Context) error {
	name, err := pathID(c, toolName)
	if err != nil {
		return err
	}
	t, ok := s.lookupTool(name)
	if !ok {
		return toolhost.ErrToolNotFound
	}
	return c.JSON(http.StatusOK, s.toolView(t, s.mcpStates()))
}

// createTool answers POST /admin/tools: 201 with the new tool, 409 when
// the name is taken.
func (s *Server) createTool(c echo.Context) error {
	spec, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err
	}
	t, err := s.runtime.CreateRuntimeTool(c.Request().Context(), spec)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, s.toolView(t, s.mcpStates()))
}

// putTool answers PUT /admin/tools/{name}: 201 when it created the tool,
// 200 when it replaced a runtime tool.
func (s *Server) putTool(c echo.Context) error {
	name, err := pathID(c, toolName)
	if err != nil {
		return err
	}
	spec, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err
	}
	t, created, err := s.runtime.PutRuntimeTool(c.Request().Context(), name, spec)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.JSON(status, s.toolView(t, s.mcpStates()))
}

func (s *Server) deleteTool(c echo.Context) error {
	name, err := pathID(c, toolName)
	if err != nil {
		return err
	}
	if err := s.runtime.DeleteRuntimeTool(c.Request().Context(), name); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
