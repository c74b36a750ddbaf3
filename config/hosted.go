package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The hosted tool kinds hosted_tools may bind (docs/hosted-tools.md): the
// web search and web fetch a client such as Codex or Claude Code offers
// as a tool its provider runs. Each runs a server tool under the kind's
// own name, with the kind's one argument.
const (
	HostedWebSearch = "web_search"
	HostedWebFetch  = "web_fetch"
)

// HostedKinds lists the kinds hosted_tools accepts, in the order docs
// name them.
var HostedKinds = []string{HostedWebSearch, HostedWebFetch}

// HostedArg is the one argument a kind's calls carry: query for a
// search, url for a fetch; "" for a kind that is not one.
func HostedArg(kind string) string {
	switch kind {
	case HostedWebSearch:
		return "query"
	case HostedWebFetch:
		return "url"
	}
	return ""
}

// CheckHostedSchema says why a tool with these parameters cannot run for
// kind, or "" when it can: its schema must declare the kind's argument
// (a string) and require nothing else, since a call of the hosted tool
// carries that argument alone. config checks the file's tools with it;
// the proxy checks MCP and runtime tools with it when a client offers
// the kind, since their schemas are known only then.
func CheckHostedSchema(kind string, params json.RawMessage) string {
	arg := HostedArg(kind)
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &s); err != nil {
			return "its parameters are not a JSON Schema object"
		}
	}
	prop, ok := s.Properties[arg]
	if !ok {
		return fmt.Sprintf("its parameters must declare %q (a string), the one argument a %s call carries", arg, kind)
	}
	var p struct {
		Type json.RawMessage `json:"type"`
	}
	_ = json.Unmarshal(prop, &p)
	if len(p.Type) > 0 && !strings.Contains(string(p.Type), `"string"`) {
		return fmt.Sprintf("its parameter %q must be a string, not %s", arg, p.Type)
	}
	for _, r := range s.Required {
		if r != arg {
			return fmt.Sprintf("it requires %q, which a %s call never carries (it has only %q)", r, kind, arg)
		}
	}
	return ""
}

// hostedTools checks hosted_tools: known kinds, tool names of the right
// shape, and, for a tool of this file, a schema that takes the kind's
// argument. A name no tool of the file has may be an MCP server's tool or
// one registered at runtime: that is a warning (see hostedWarnings), and
// the proxy checks it when a client offers the kind.
func (v *validator) hostedTools(c *Config) {
	for _, kind := range sortedKeys(c.HostedTools) {
		name := c.HostedTools[kind]
		p := "hosted_tools." + kind
		if !slices.Contains(HostedKinds, kind) {
			v.add(p, "unknown hosted tool kind %q (want one of %s)", kind, strings.Join(HostedKinds, ", "))
			continue
		}
		if !v.name(p, name, toolName, "required (the server tool that runs for "+kind+", e.g. search_web)", toolNameShape) {
			continue
		}
		if i := slices.IndexFunc(c.Tools, func(t Tool) bool { return t.Name == name }); i >= 0 {
			if msg := CheckHostedSchema(kind, c.Tools[i].Parameters); msg != "" {
				v.add(p, "tool %q cannot run for %s: %s (tools[%d].parameters)", name, kind, msg, i)
			}
		}
	}
}

// hostedWarnings warns of a binding to a name no tool of the file has: it
// works once an MCP server or the admin API supplies that tool, and until
// then a client's offer of the kind is left out (and logged).
func (c *Config) hostedWarnings() []Problem {
	var out []Problem
	for _, kind := range sortedKeys(c.HostedTools) {
		name := c.HostedTools[kind]
		if slices.ContainsFunc(c.Tools, func(t Tool) bool { return t.Name == name }) {
			continue
		}
		msg := fmt.Sprintf("%q is not a tool of this file; %s runs only once an MCP server or the admin API supplies a tool of that name (until then a client's %s is left out)", name, kind, kind)
		out = append(out, Problem{File: c.File, Path: "hosted_tools." + kind, Message: msg, Warning: true})
	}
	return out
}
