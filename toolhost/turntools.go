package toolhost

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolstream/toolstream/toolhost/mask"
)

// SourceRequestPrefix is the Source of a tool one request brought along,
// followed by the label of the MCP server it came from (a Responses mcp
// tool's server_label, a Messages mcp_servers entry's name). Such a tool
// is never registered: it lives in its turn's [TurnTools].
const SourceRequestPrefix = "request-mcp:"

// TurnTools are server tools that exist for one turn only: the tools of
// the MCP servers its request named. Their calls go through
// [Host.Execute] like any other — coercion and validation by their
// schema, policies, approvals, the audit log, retries of a whole turn —
// found through the turn's [Origin.Tools], never through the registry:
// another request does not see them, and they shadow no registered tool.
type TurnTools struct {
	reg *registry
}

// TurnTools checks regs and compiles their schemas, each tool's Source
// set to SourceRequestPrefix + its server's label by the caller. Results
// are masked against the secrets of the registered tools and those the
// turn's executors send ([SecretHolder]): a server may repeat the token
// it was sent. A name given twice, or an invalid tool, is an error.
func (h *Host) TurnTools(regs []Registration) (*TurnTools, error) {
	reg := &registry{tools: map[string]*entry{}}
	var errs []error
	for _, r := range regs {
		e, err := newEntry(r.Tool, r.Exec)
		if err == nil && reg.tools[r.Tool.Name] != nil {
			err = errors.New("duplicate tool name")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("tool %q: %w", r.Tool.Name, err))
			continue
		}
		reg.names = append(reg.names, r.Tool.Name)
		reg.tools[r.Tool.Name] = e
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	reg.mask = mask.New(append(h.reg.Load().secretsOf(), reg.secretsOf()...))
	return &TurnTools{reg: reg}, nil
}

// Tools returns the turn's tools in the order given.
func (t *TurnTools) Tools() []Tool {
	out := make([]Tool, 0, len(t.reg.names))
	for _, n := range t.reg.names {
		out = append(out, t.reg.tools[n].tool)
	}
	return out
}

// registryOf is the registry call's tool is found in: its turn's own
// tools first, then the registered ones.
func (h *Host) registryOf(call Call) *registry {
	if turnEntry(call) != nil {
		return call.Origin.Tools.reg
	}
	return h.reg.Load()
}

// turnEntry is the turn tool call runs, nil when it is a registered
// tool's call.
func turnEntry(call Call) *entry {
	if o := call.Origin; o != nil && o.Tools != nil {
		return o.Tools.reg.tools[call.Name]
	}
	return nil
}

// serverOf is the label of the request-named MCP server a tool came from,
// "" for any other tool.
func serverOf(t Tool) string { return RequestServerOf(t.Source) }

// RequestServerOf is the label of the request-named MCP server of a tool
// whose Source is source, "" for a tool of any other source.
func RequestServerOf(source string) string {
	if label, ok := strings.CutPrefix(source, SourceRequestPrefix); ok {
		return label
	}
	return ""
}

// MCPServerOf is the name of the MCP server a tool of source came from:
// a configured server's name or a request-named server's label; "" for
// a webhook or runtime tool.
func MCPServerOf(source string) string {
	if label := RequestServerOf(source); label != "" {
		return label
	}
	name, _ := strings.CutPrefix(source, SourceMCPPrefix)
	if name == source {
		return ""
	}
	return name
}
