package config

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// UnknownTool is an entry of a key's tools scope that no tool matches.
type UnknownTool struct {
	// Index is the entry's place in the scope, Entry the entry itself.
	Index int
	Entry string
	// Meant is the known tool name closest to Entry when it is likely a
	// typo of one; empty otherwise.
	Meant string
}

// UnknownTools finds the entries of a key's tools scope (globs, as keys
// match them) that match none of the known tool names and none a
// dynamic source may add later. Dynamic sources are named by the prefix
// every tool of theirs carries (an MCP server's prefix): an entry that
// could match a name with that prefix is not reported, since the tools
// such a source has are known only once it runs. A source without a
// prefix could add any name, so with one nothing is reported.
func UnknownTools(scope, known, prefixes []string) []UnknownTool {
	var out []UnknownTool
	for i, entry := range scope {
		if slices.ContainsFunc(known, func(name string) bool { ok, _ := path.Match(entry, name); return ok }) {
			continue
		}
		if slices.ContainsFunc(prefixes, func(p string) bool { return mayMatchPrefix(entry, p) }) {
			continue
		}
		out = append(out, UnknownTool{Index: i, Entry: entry, Meant: Closest(entry, known)})
	}
	return out
}

// mayMatchPrefix reports whether glob could match some name that starts
// with prefix: the glob's literal start (up to its first wildcard) and
// the prefix agree as far as both go.
func mayMatchPrefix(glob, prefix string) bool {
	lit := glob
	if i := strings.IndexAny(glob, `*?[\`); i >= 0 {
		lit = glob[:i]
	} else if len(glob) < len(prefix) {
		return false // a literal name shorter than the prefix
	}
	return strings.HasPrefix(lit, prefix) || strings.HasPrefix(prefix, lit)
}

// UnknownToolMessage says what is wrong with u, a tools entry of a key,
// for check's warnings and the answers of /admin/keys.
func UnknownToolMessage(u UnknownTool) string {
	msg := fmt.Sprintf("%q matches no server tool", u.Entry)
	if u.Meant != "" {
		msg += fmt.Sprintf("; did you mean %q?", u.Meant)
	}
	return msg + " (until a tool of that name exists, the key's turns cannot call it)"
}

// scopeWarnings warns of a key's tools entry that matches no tool of the
// file and no name an MCP server or an OpenAPI document could add (by its
// prefix).
func (c *Config) scopeWarnings() []Problem {
	known := make([]string, 0, len(c.Tools))
	for _, t := range c.Tools {
		known = append(known, t.Name)
	}
	prefixes := make([]string, 0, len(c.MCPServers)+len(c.OpenAPITools))
	for _, m := range c.MCPServers {
		prefixes = append(prefixes, m.Prefix)
	}
	// An OpenAPI document's tools are known once it is read; each carries
	// its entry's prefix.
	for i := range c.OpenAPITools {
		prefixes = append(prefixes, c.OpenAPITools[i].ToolPrefix())
	}
	var out []Problem
	for i, k := range c.Auth.Keys {
		for _, u := range UnknownTools(k.Tools, known, prefixes) {
			out = append(out, Problem{File: c.File, Path: fmt.Sprintf("auth.keys[%d].tools[%d]", i, u.Index), Message: UnknownToolMessage(u), Warning: true})
		}
	}
	return out
}
