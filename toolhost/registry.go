package toolhost

import (
	"errors"
	"fmt"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolstream/toolstream/toolhost/mask"
)

// Sources of a registered tool, as GET /admin/tools shows them.
const (
	SourceConfig  = "config"
	SourceRuntime = "runtime"
	// SourceMCPPrefix is followed by the MCP server's name.
	SourceMCPPrefix = "mcp:"
)

// ErrShadowed is returned when a tool would take the name of a tool of
// another source: a runtime tool may not shadow a config tool, nor a
// reloaded config tool a runtime one.
var ErrShadowed = errors.New("toolhost: name taken by a tool of another source")

// Registration is one tool with the executor that runs its calls.
type Registration struct {
	Tool Tool
	Exec Executor
}

// registry is one immutable view of the tools; never modified once stored.
type registry struct {
	names []string // registration order: config order, then the rest
	tools map[string]*entry
	// mask masks every result against the secrets of all the tools
	// (secrets.go); set by publish.
	mask *mask.Masker
}

// entry is one registered tool: what the model sees, its compiled schema
// and its executor.
type entry struct {
	tool   Tool
	schema *jsonschema.Schema
	exec   Executor
}

// newEntry checks a tool and compiles its schema.
func newEntry(t Tool, exec Executor) (*entry, error) {
	if t.Name == "" {
		return nil, errors.New("name is empty")
	}
	if exec == nil {
		return nil, errors.New("no executor")
	}
	switch t.Approval {
	case "":
		t.Approval = ApprovalNever
	case ApprovalNever, ApprovalAlways, ApprovalAdmin:
	default:
		return nil, fmt.Errorf("approval: unknown value %q (want never, always or admin)", t.Approval)
	}
	if t.Source == "" {
		t.Source = SourceConfig
	}
	t.Parameters = slices.Clone(t.Parameters)
	if len(t.Parameters) == 0 {
		t.Parameters = slices.Clone(defaultParameters)
	}
	sch, err := compileSchema(t.Parameters)
	if err != nil {
		return nil, err
	}
	t.Redact = slices.Clone(t.Redact)
	return &entry{tool: t, schema: sch, exec: exec}, nil
}

// Register adds a tool with its executor, or replaces the tool of the same
// name and source in place (PUT semantics, for the admin API). The tool is
// checked and its schema compiled before anything changes; a name held by
// a tool of another source is [ErrShadowed]. Calls already running finish
// with the tool they started with.
func (h *Host) Register(t Tool, exec Executor) error {
	e, err := newEntry(t, exec)
	if err != nil {
		return fmt.Errorf("registering tool %q: %w", t.Name, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.reg.Load()
	if o, ok := old.tools[t.Name]; ok && o.tool.Source != e.tool.Source {
		return fmt.Errorf("registering tool %q: %w (%s)", t.Name, ErrShadowed, o.tool.Source)
	}
	next := old.clone()
	if _, exists := next.tools[t.Name]; !exists {
		next.names = append(next.names, t.Name)
	}
	next.tools[t.Name] = e
	h.publish(next)
	return nil
}

// Remove unregisters a tool and reports whether it was registered.
func (h *Host) Remove(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.reg.Load()
	if _, ok := old.tools[name]; !ok {
		return false
	}
	h.publish(old.without(func(e *entry) bool { return e.tool.Name == name }))
	return true
}

// SetSource replaces every tool of one source at once — a config reload,
// an MCP server's new tool list — keeping the other sources' tools. It
// checks every tool first and changes nothing if one is bad or would
// shadow a tool of another source; it reports every problem.
func (h *Host) SetSource(source string, regs []Registration) error {
	entries := make([]*entry, 0, len(regs))
	var errs []error
	seen := map[string]bool{}
	for i, r := range regs {
		r.Tool.Source = source
		e, err := newEntry(r.Tool, r.Exec)
		if err == nil && seen[r.Tool.Name] {
			err = errors.New("duplicate tool name")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("tools[%d] %q: %w", i, r.Tool.Name, err))
			continue
		}
		seen[r.Tool.Name] = true
		entries = append(entries, e)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.reg.Load()
	for _, e := range entries {
		if o, ok := old.tools[e.tool.Name]; ok && o.tool.Source != source {
			errs = append(errs, fmt.Errorf("tool %q: %w (%s)", e.tool.Name, ErrShadowed, o.tool.Source))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	next := old.without(func(e *entry) bool { return e.tool.Source == source })
	// A source's tools keep their place before the others when it is the
	// config: the order tools are taught in follows the file.
	var names []string
	for _, e := range entries {
		names = append(names, e.tool.Name)
		next.tools[e.tool.Name] = e
	}
	if source == SourceConfig {
		next.names = append(names, next.names...)
	} else {
		next.names = append(next.names, names...)
	}
	h.publish(next)
	return nil
}

// clone copies the registry for a writer to change.
func (r *registry) clone() *registry {
	next := &registry{names: slices.Clone(r.names), tools: make(map[string]*entry, len(r.tools)+1)}
	for name, e := range r.tools {
		next.tools[name] = e
	}
	return next
}

// without copies the registry minus the entries drop selects.
func (r *registry) without(drop func(*entry) bool) *registry {
	next := &registry{tools: make(map[string]*entry, len(r.tools))}
	for _, n := range r.names {
		if e := r.tools[n]; !drop(e) {
			next.names = append(next.names, n)
			next.tools[n] = e
		}
	}
	return next
}

// Tools returns the registered tools in registration order (config order,
// then runtime and MCP tools). The slice is the caller's; Parameters and
// Redact are shared and must not be modified.
func (h *Host) Tools() []Tool {
	reg := h.reg.Load()
	out := make([]Tool, 0, len(reg.names))
	for _, n := range reg.names {
		out = append(out, reg.tools[n].tool)
	}
	return out
}

// Lookup returns the tool called name.
func (h *Host) Lookup(name string) (Tool, bool) {
	e, ok := h.reg.Load().tools[name]
	if !ok {
		return Tool{}, false
	}
	return e.tool, true
}

// Names returns the registered tool names in registration order.
func (h *Host) Names() []string {
	return slices.Clone(h.reg.Load().names)
}
