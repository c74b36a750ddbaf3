package config

import (
	"fmt"
	"regexp"
	"strings"
)

// mcpServers checks the mcp_servers entries (docs/configuration.md,
// docs/mcp.md).
func (v *validator) mcpServers(c *Config) {
	first := map[string]int{}
	for i := range c.MCPServers {
		s := &c.MCPServers[i]
		p := fmt.Sprintf("mcp_servers[%d]", i)
		v.uniqueName(first, "mcp_servers", i, s.Name, mcpName, "required (a name for logs, metrics and the tools' source, e.g. notes)", "must be 1–64 letters, digits, '_' or '-'")
		v.mcpTransport(p, s)
		for k, g := range s.Tools {
			v.pattern(fmt.Sprintf("%s.tools[%d]", p, k), g)
		}
		for k, g := range s.Exclude {
			v.pattern(fmt.Sprintf("%s.exclude[%d]", p, k), g)
		}
		if s.Prefix != "" && !mcpPrefix.MatchString(s.Prefix) {
			v.add(p+".prefix", "%q must be 1–32 letters, digits, '_' or '-', so that prefixed names stay tool names", s.Prefix)
		}
		if s.Timeout < 0 {
			v.add(p+".timeout", "must be positive, got %s (leave it out to use loop.tool_timeout)", s.Timeout)
		}
		v.mcpApproval(c, p+".approval", s.Approval)
		v.overrides(c, p, s.Overrides)
	}
}

// overrides checks per-tool overrides of an mcp_servers or openapi_tools
// entry at p.
func (v *validator) overrides(c *Config, p string, overrides map[string]MCPOverride) {
	for name, o := range overrides {
		op := p + ".overrides." + name
		if name == "" {
			v.add(p+".overrides", "empty tool name")
			continue
		}
		if o.Approval != "" {
			v.mcpApproval(c, op+".approval", o.Approval)
		}
		if o.Timeout < 0 {
			v.add(op+".timeout", "must be positive, got %s", o.Timeout)
		}
		for k, r := range o.Redact {
			if r == "" {
				v.add(fmt.Sprintf("%s.redact[%d]", op, k), "empty field name (want an argument name like password)")
			}
		}
	}
}

// mcpTransport checks that exactly one transport is set, and the keys
// that go with it.
func (v *validator) mcpTransport(p string, s *MCPServer) {
	switch {
	case s.Command == "" && s.URL == "":
		v.add(p, "needs command (a server started over stdio) or url (a streamable HTTP server)")
		return
	case s.Command != "" && s.URL != "":
		v.add(p+".url", "set either command (stdio) or url (streamable HTTP), not both")
		return
	}
	if s.URL != "" {
		v.httpURL(p+".url", s.URL)
		v.headers(p+".headers", secretValues(s.Headers))
		if len(s.Args) > 0 {
			v.add(p+".args", "only for a stdio server (command); a url server takes headers")
		}
		if len(s.Env) > 0 {
			v.add(p+".env", "only for a stdio server (command); a url server takes headers")
		}
		return
	}
	if len(s.Headers) > 0 {
		v.add(p+".headers", "only for a streamable HTTP server (url); a stdio server takes env")
	}
	for k := range s.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			v.add(p+".env", "%q is not an environment variable name", k)
		}
	}
}

// mcpApproval checks an approval value; admin needs admin keys.
func (v *validator) mcpApproval(c *Config, p, val string) {
	v.oneOf(p, val, "never", "always", "admin")
	if val == "admin" && !hasKey(c.Auth.AdminKeys) {
		v.add(p, "admin needs auth.admin_keys: without an admin key nobody could approve its calls")
	}
}

var (
	mcpName   = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	mcpPrefix = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)
)
