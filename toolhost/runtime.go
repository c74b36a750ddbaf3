package toolhost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Runtime tools are webhook tools registered through the admin API
// (/admin/tools): the same shape as a config tools entry, sent as JSON,
// checked by the same rules, plus auth.webhook_allow and the dial-time
// guard (guard.go). They are persisted as sent, so a restart rebuilds
// them the same way, and take part in the next turn like any other tool.

// ToolStore keeps runtime tools: the methods of [store.ToolStore], the
// storage domain that every backend of toolhost/store implements.
type ToolStore interface {
	// PutTool creates or replaces a runtime tool.
	PutTool(ctx context.Context, t store.RuntimeTool) error
	// DeleteTool removes one and reports whether it existed.
	DeleteTool(ctx context.Context, name string) (bool, error)
	// Tools lists them by name.
	Tools(ctx context.Context) ([]store.RuntimeTool, error)
}

// Errors of the runtime tool methods; match them with errors.Is.
var (
	// ErrToolExists refuses to create a tool whose name is taken.
	ErrToolExists = errors.New("toolhost: a tool of that name exists")
	// ErrToolNotFound is a name no tool has.
	ErrToolNotFound = errors.New("toolhost: no tool of that name")
)

// ReadOnlyError refuses an admin change to a config or MCP tool: those
// change with the config file and their MCP server. It matches
// [ErrShadowed] with errors.Is: the name belongs to another source.
type ReadOnlyError struct {
	Name string
	// Source is the tool's source: SourceConfig or SourceMCPPrefix + server.
	Source string
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("toolhost: tool %q comes from %s and is read-only here", e.Name, e.Source)
}

// Is reports whether target is [ErrShadowed].
func (e *ReadOnlyError) Is(target error) bool { return target == ErrShadowed }

// SpecError is a runtime tool that cannot be registered as sent: it does
// not decode, breaks a rule of config tools, or its webhook points where
// auth.webhook_allow does not let it. Every problem names its field.
type SpecError struct {
	// Problems have paths like "webhook.timeout"; no file or position.
	Problems []config.Problem
}

// Error lists the problems on one line.
func (e *SpecError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.String()
	}
	return strings.Join(msgs, "; ")
}

// runtimeTools is the Host's state for runtime tools.
type runtimeTools struct {
	store  ToolStore // nil: memory only
	guard  *guard
	client *http.Client // guarded: runtime webhooks only

	// mu serialises runtime changes from registry to store, so that the
	// two agree on which of two concurrent PUTs won.
	mu    sync.Mutex
	specs map[string]runtimeSpec // by name; guarded by mu
	// skipped are stored specs that could not be registered here, so
	// that each is warned of once, not at every sync; guarded by mu.
	skipped map[string]json.RawMessage
}

// runtimeSpec is a registered runtime tool as decoded, for the admin view,
// and as stored, to tell whether the store's copy changed.
type runtimeSpec struct {
	tool    config.Tool
	created time.Time
	raw     json.RawMessage
}

func (rt *runtimeTools) init(ts ToolStore, allow []string, log *slog.Logger) {
	rt.store = ts
	rt.guard = newGuard(allow, log)
	rt.client = guardedClient(rt.guard)
	rt.specs = map[string]runtimeSpec{}
	rt.skipped = map[string]json.RawMessage{}
}

// CreateRuntimeTool registers a new runtime tool from spec, a tools entry
// of the config file written as JSON (see [config.Tool.UnmarshalJSON]),
// and persists it as sent. A name any tool has is [ErrToolExists]; a spec
// that cannot be registered is a [*SpecError]; a store failure leaves
// nothing registered.
func (h *Host) CreateRuntimeTool(ctx context.Context, spec json.RawMessage) (Tool, error) {
	// A name taken is said first, as PutRuntimeTool says a read-only one.
	var head struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(spec, &head) == nil {
		if o, ok := h.Lookup(head.Name); ok {
			return Tool{}, fmt.Errorf("creating runtime tool %q: %w (%s)", head.Name, ErrToolExists, o.Source)
		}
	}
	t, _, err := h.putRuntime(ctx, "", spec, true)
	return t, err
}

// PutRuntimeTool creates or replaces the runtime tool called name (the
// admin API's PUT /admin/tools/{name}); the spec's own name must be name
// or absent. created says no tool had the name. The name of a config or
// MCP tool is a [*ReadOnlyError] (which matches [ErrShadowed]); a spec
// that cannot be registered is a [*SpecError]. When the store fails, the
// tool it replaced is put back. A call already running keeps the tool it
// started with; the next turn sees the new one.
func (h *Host) PutRuntimeTool(ctx context.Context, name string, spec json.RawMessage) (t Tool, created bool, err error) {
	if name == "" {
		return Tool{}, false, &SpecError{Problems: []config.Problem{{Path: "name", Message: "required"}}}
	}
	// Before the spec is looked at: a config or MCP tool cannot be
	// replaced whatever is sent, and saying why the spec would not do
	// (a webhook host outside webhook_allow) hides that.
	if o, ok := h.Lookup(name); ok && o.Source != SourceRuntime {
		return Tool{}, false, &ReadOnlyError{Name: name, Source: o.Source}
	}
	return h.putRuntime(ctx, name, spec, false)
}

func (h *Host) putRuntime(ctx context.Context, name string, spec json.RawMessage, create bool) (Tool, bool, error) {
	ct, reg, err := h.buildRuntime(ctx, name, spec)
	if err != nil {
		return Tool{}, false, err
	}
	name = ct.Name

	h.rt.mu.Lock()
	defer h.rt.mu.Unlock()
	old := h.reg.Load().tools[name]
	switch {
	case old != nil && create:
		return Tool{}, false, fmt.Errorf("creating runtime tool %q: %w (%s)", name, ErrToolExists, old.tool.Source)
	case old != nil && old.tool.Source != SourceRuntime:
		return Tool{}, false, &ReadOnlyError{Name: name, Source: old.tool.Source}
	}
	if err := h.Register(reg.Tool, reg.Exec); err != nil {
		if o, ok := h.Lookup(name); ok && errors.Is(err, ErrShadowed) {
			return Tool{}, false, &ReadOnlyError{Name: name, Source: o.Source}
		}
		return Tool{}, false, &SpecError{Problems: []config.Problem{{Message: err.Error()}}}
	}
	now := h.now()
	created := now
	if prev, ok := h.rt.specs[name]; ok {
		created = prev.created
	}
	raw := slices.Clone(spec)
	if h.rt.store != nil {
		rec := store.RuntimeTool{Name: name, Spec: raw, CreatedAt: created, UpdatedAt: now}
		if err := h.rt.store.PutTool(ctx, rec); err != nil {
			h.restore(name, old)
			return Tool{}, false, fmt.Errorf("storing runtime tool %q: %w", name, err)
		}
	}
	h.rt.specs[name] = runtimeSpec{tool: ct, created: created, raw: raw}
	delete(h.rt.skipped, name)
	h.log.Info("runtime tool registered", "tool", name, "webhook_host", webhookHost(ct), "replaced", old != nil)
	t, _ := h.Lookup(name)
	return t, old == nil, nil
}

// buildRuntime decodes and checks a spec and builds its webhook on the
// guarded client. name, when set, is the name the spec must have (or
// gets, when it has none).
func (h *Host) buildRuntime(ctx context.Context, name string, spec json.RawMessage) (config.Tool, Registration, error) {
	ct := config.DefaultToolEntry()
	if err := ct.UnmarshalJSON(spec); err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			return ct, Registration{}, &SpecError{Problems: ce.Problems}
		}
		return ct, Registration{}, &SpecError{Problems: []config.Problem{{Message: err.Error()}}}
	}
	var problems []config.Problem
	switch {
	case name == "":
	case ct.Name == "":
		ct.Name = name
	case ct.Name != name:
		problems = append(problems, config.Problem{Path: "name",
			Message: fmt.Sprintf("%q does not match the name in the URL (%q); leave it out or make them equal", ct.Name, name)})
	}
	problems = append(problems, config.CheckTool(ct, "")...)
	if ct.Webhook != nil {
		if msg := h.rt.guard.checkURL(ctx, ct.Webhook.URL); msg != "" {
			problems = append(problems, config.Problem{Path: "webhook.url", Message: msg})
		}
	}
	if len(problems) > 0 {
		return ct, Registration{}, &SpecError{Problems: problems}
	}
	exec, err := h.Webhook(ct, h.rt.client)
	if errors.Is(err, ErrSecretInvalid) {
		return ct, Registration{}, &SpecError{Problems: []config.Problem{{Path: "webhook.secret",
			Message: `not a usable signing secret ("whsec_" and base64, as Standard Webhooks libraries make them, or any other text used as it is)`}}}
	}
	if err != nil {
		return ct, Registration{}, &SpecError{Problems: []config.Problem{{Message: err.Error()}}}
	}
	return ct, Registration{Tool: ToolFromConfig(ct, SourceRuntime), Exec: exec}, nil
}

// restore puts back the entry a failed change replaced, or removes the
// name when it had none.
func (h *Host) restore(name string, old *entry) {
	h.mu.Lock()
	defer h.mu.Unlock()
	reg := h.reg.Load()
	if old == nil {
		h.publish(reg.without(func(e *entry) bool { return e.tool.Name == name }))
		return
	}
	next := reg.clone()
	next.tools[name] = old
	h.publish(next)
}

// DeleteRuntimeTool removes a runtime tool from the store and the
// registry. A config or MCP tool is a [*ReadOnlyError]; an unknown name
// [ErrToolNotFound], unless the store still holds a tool of that name
// that was skipped at start-up, which is then removed from the store.
func (h *Host) DeleteRuntimeTool(ctx context.Context, name string) error {
	h.rt.mu.Lock()
	defer h.rt.mu.Unlock()
	t, ok := h.Lookup(name)
	switch {
	case ok && t.Source != SourceRuntime:
		return &ReadOnlyError{Name: name, Source: t.Source}
	case !ok && (h.rt.store == nil || !store.ValidName(name)):
		// A name the store cannot hold was never a runtime tool: not
		// found, rather than the store's refusal (a 500 to the admin).
		return fmt.Errorf("deleting runtime tool %q: %w", name, ErrToolNotFound)
	}
	if h.rt.store != nil {
		existed, err := h.rt.store.DeleteTool(ctx, name)
		if err != nil {
			return fmt.Errorf("deleting runtime tool %q: %w", name, err)
		}
		if !ok && !existed {
			return fmt.Errorf("deleting runtime tool %q: %w", name, ErrToolNotFound)
		}
	}
	h.Remove(name)
	delete(h.rt.specs, name)
	delete(h.rt.skipped, name)
	h.log.Info("runtime tool deleted", "tool", name)
	return nil
}

// LoadRuntimeTools registers the stored runtime tools, once at start-up
// after the config tools. A stored tool that can no longer be registered
// — its name is now a config tool's, its webhook no longer passes
// auth.webhook_allow, or it breaks a rule — is skipped with a warning and
// stays in the store; only a store failure is an error. Without a
// [ToolStore] there is nothing to load, which is logged. Later changes
// made by other processes sharing the store arrive through [Host.Follow].
func (h *Host) LoadRuntimeTools(ctx context.Context) error {
	if h.rt.store == nil {
		h.log.Info("runtime tools are kept in memory only: no tool store")
		return nil
	}
	n, err := h.syncRuntime(ctx)
	if err != nil {
		return fmt.Errorf("loading runtime tools: %w", err)
	}
	h.log.Info("runtime tools loaded", "count", n.registered, "skipped", n.skipped)
	return nil
}

// dropRuntime removes the runtime tool name, leaving a config or MCP tool
// of that name alone. Callers hold rt.mu.
func (h *Host) dropRuntime(name string) {
	if t, ok := h.Lookup(name); ok && t.Source == SourceRuntime {
		h.Remove(name)
	}
	delete(h.rt.specs, name)
}

// synced counts what syncRuntime found.
type synced struct{ registered, skipped, changed int }

// syncRuntime makes the registered runtime tools what the store holds:
// new and changed specs are (re)built, tools the store no longer has are
// removed. The store is read under rt.mu, so a change this process makes
// meanwhile is either read or made after. A spec that cannot be
// registered here is skipped with a warning once per version, and a tool
// it would replace is removed: running an older spec than the store's
// would be wrong.
func (h *Host) syncRuntime(ctx context.Context) (synced, error) {
	var n synced
	h.rt.mu.Lock()
	defer h.rt.mu.Unlock()
	recs, err := h.rt.store.Tools(ctx)
	if err != nil {
		return n, err
	}
	seen := make(map[string]bool, len(recs))
	for _, rec := range recs {
		seen[rec.Name] = true
		if cur, ok := h.rt.specs[rec.Name]; ok && bytes.Equal(cur.raw, rec.Spec) {
			n.registered++
			continue
		}
		if bytes.Equal(h.rt.skipped[rec.Name], rec.Spec) {
			n.skipped++
			continue
		}
		n.changed++
		ct, reg, err := h.buildRuntime(ctx, rec.Name, rec.Spec)
		if err == nil {
			if t, ok := h.Lookup(rec.Name); ok && t.Source != SourceRuntime {
				err = fmt.Errorf("the name is now taken by a tool from %s", t.Source)
			} else {
				err = h.Register(reg.Tool, reg.Exec)
			}
		}
		if err != nil {
			h.log.Warn("runtime tool skipped", "tool", rec.Name, "reason", err.Error())
			h.rt.skipped[rec.Name] = rec.Spec
			h.dropRuntime(rec.Name)
			n.skipped++
			continue
		}
		delete(h.rt.skipped, rec.Name)
		h.rt.specs[rec.Name] = runtimeSpec{tool: ct, created: rec.CreatedAt, raw: rec.Spec}
		n.registered++
	}
	for name := range h.rt.specs {
		if !seen[name] {
			h.dropRuntime(name)
			n.changed++
		}
	}
	for name := range h.rt.skipped {
		if !seen[name] {
			delete(h.rt.skipped, name)
		}
	}
	return n, nil
}

// RuntimeTool returns the runtime tool called name as it was registered
// (for the admin API's view). Its webhook headers and secret are the real
// values: redact them before showing them.
func (h *Host) RuntimeTool(name string) (config.Tool, bool) {
	h.rt.mu.Lock()
	defer h.rt.mu.Unlock()
	s, ok := h.rt.specs[name]
	return s.tool, ok
}

// SetWebhookAllow replaces auth.webhook_allow (a config reload). Runtime
// tools already registered are held to the new list from their next
// connection on; idle connections are closed so that none outlives it.
func (h *Host) SetWebhookAllow(globs []string) {
	h.rt.guard.set(globs)
	h.rt.client.CloseIdleConnections()
}

// webhookHost is the host of a tool's webhook, for logs: the whole URL
// may carry a token in its query.
func webhookHost(t config.Tool) string {
	if t.Webhook == nil {
		return ""
	}
	u, err := url.Parse(t.Webhook.URL)
	if err != nil {
		return ""
	}
	return u.Host
}
