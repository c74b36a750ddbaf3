package messages

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolstream/toolstream/loop"
)

// MCP servers a request names itself (docs/request-mcp-servers.md), as
// Anthropic's MCP connector takes them: mcp_servers entries ({type:
// "url", url, name, authorization_token}) and, in tools, an mcp_toolset
// per server ({mcp_server_name, default_config: {enabled}, configs:
// {tool: {enabled}}}). The older form, tool_configuration: {enabled,
// allowed_tools} on the entry itself, is read too. The proxy connects to
// each server for the turn; its tools' calls come back as mcp_tool_use
// and mcp_tool_result blocks naming the server.

// toolset is an mcp_toolset tools entry: which of a server's tools the
// model is offered.
type toolset struct {
	server  string
	param   string
	enabled bool            // default_config.enabled; true when not given
	configs map[string]bool // configs.<tool>.enabled
}

// allow says whether the toolset offers the server's tool name.
func (t *toolset) allow(name string) bool {
	if on, ok := t.configs[name]; ok {
		return on
	}
	return t.enabled
}

// readToolset reads an mcp_toolset tools entry.
func readToolset(o object, p string) (*toolset, error) {
	server, err := readString(o["mcp_server_name"], p+".mcp_server_name")
	if err != nil {
		return nil, err
	}
	if server == "" {
		return nil, invalid(p+".mcp_server_name", "Field required: the name of an mcp_servers entry")
	}
	ts := &toolset{server: server, param: p, enabled: true, configs: map[string]bool{}}
	if raw := o["default_config"]; !isNull(raw) {
		if ts.enabled, err = readEnabled(raw, p+".default_config"); err != nil {
			return nil, err
		}
	}
	if raw := o["configs"]; !isNull(raw) {
		configs, err := readObject(raw, p+".configs")
		if err != nil {
			return nil, err
		}
		for name, c := range configs {
			if ts.configs[name], err = readEnabled(c, p+".configs."+name); err != nil {
				return nil, err
			}
		}
	}
	return ts, nil
}

// readEnabled reads a tool config's enabled, true when not given; its
// defer_loading is not honoured (the tools are offered from the start).
func readEnabled(raw []byte, p string) (bool, error) {
	c, err := readObject(raw, p)
	if err != nil {
		return false, err
	}
	on, err := readBool(c["enabled"], p+".enabled")
	if err != nil || on == nil {
		return true, err
	}
	return *on, nil
}

// readServers reads mcp_servers, after the tools (their toolsets).
func (r *Request) readServers(raw []byte) error {
	if isNull(raw) {
		return r.strayToolsets()
	}
	list, err := readArray(raw, "mcp_servers")
	if err != nil {
		return err
	}
	for i, e := range list {
		s, err := r.readServer(e, fmt.Sprintf("mcp_servers.%d", i))
		if err != nil {
			return err
		}
		r.Servers = append(r.Servers, s)
	}
	return r.strayToolsets()
}

// readServer reads one mcp_servers entry.
func (r *Request) readServer(raw []byte, p string) (loop.MCPServer, error) {
	o, err := readObject(raw, p)
	if err != nil {
		return loop.MCPServer{}, err
	}
	typ, err := readString(o["type"], p+".type")
	if err != nil {
		return loop.MCPServer{}, err
	}
	if typ != "url" {
		return loop.MCPServer{}, invalid(p+".type", "Input should be 'url'")
	}
	s := loop.MCPServer{Param: p, Headers: map[string]string{}}
	if s.URL, err = readString(o["url"], p+".url"); err != nil {
		return s, err
	}
	if s.Label, err = readString(o["name"], p+".name"); err != nil {
		return s, err
	}
	if s.URL == "" || s.Label == "" {
		return s, invalid(p, "url and name are required")
	}
	if slices.ContainsFunc(r.Servers, func(o loop.MCPServer) bool { return o.Label == s.Label }) {
		return s, invalid(p+".name", "%q names another mcp_servers entry too; give each server its own name", s.Label)
	}
	token, err := readString(o["authorization_token"], p+".authorization_token")
	if err != nil {
		return s, err
	}
	if token != "" {
		if !strings.HasPrefix(strings.ToLower(token), "bearer ") {
			token = "Bearer " + token
		}
		s.Headers["Authorization"] = token
	}
	if s.Allow, err = r.serverAllow(o, p, s.Label); err != nil {
		return s, err
	}
	return s, nil
}

// serverAllow is which of the server's tools the request offers: its
// mcp_toolset's choice, else the entry's tool_configuration, else all.
func (r *Request) serverAllow(o object, p, label string) (func(string) bool, error) {
	for _, ts := range r.toolsets {
		if ts.server == label {
			ts.server = "" // claimed
			return ts.allow, nil
		}
	}
	raw := o["tool_configuration"]
	if isNull(raw) {
		return nil, nil
	}
	tc, err := readObject(raw, p+".tool_configuration")
	if err != nil {
		return nil, err
	}
	on, err := readBool(tc["enabled"], p+".tool_configuration.enabled")
	if err != nil {
		return nil, err
	}
	if on != nil && !*on {
		return func(string) bool { return false }, nil
	}
	if isNull(tc["allowed_tools"]) {
		return nil, nil
	}
	list, err := readArray(tc["allowed_tools"], p+".tool_configuration.allowed_tools")
	if err != nil {
		return nil, err
	}
	var names []string
	for i, v := range list {
		n, err := readString(v, fmt.Sprintf("%s.tool_configuration.allowed_tools.%d", p, i))
		if err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return func(name string) bool { return slices.Contains(names, name) }, nil
}

// strayToolsets refuses an mcp_toolset naming no mcp_servers entry: its
// tools would silently be missing.
func (r *Request) strayToolsets() error {
	for _, ts := range r.toolsets {
		if ts.server != "" {
			return invalid(ts.param+".mcp_server_name", "%q names no mcp_servers entry of this request", ts.server)
		}
	}
	return nil
}
