package toolhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolstream/toolstream/config"
)

// Defaults for what [Options] and config leave at zero.
const (
	// DefaultToolTimeout bounds a call when neither the tool's
	// webhook.timeout nor [Options.ToolTimeout] is set (loop.tool_timeout).
	DefaultToolTimeout = 30 * time.Second
	// DefaultMaxResultBytes cuts results when a tool's max_result_bytes is
	// zero.
	DefaultMaxResultBytes = 64 << 10
)

// defaultParameters is the schema of a tool that declares none: an object
// with any properties.
var defaultParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// Options configure a [Host]. The zero value is ready to use.
type Options struct {
	// ToolTimeout bounds a call of a tool without its own webhook.timeout
	// (loop.tool_timeout), retries included. Zero means
	// [DefaultToolTimeout].
	ToolTimeout time.Duration
	// Client sends webhook requests. Nil means a default client with a
	// pooled keep-alive transport and a 10s dial timeout. Redirects are
	// never followed, whatever the client's CheckRedirect says: a 3xx is
	// an API_ERROR. The client's own Timeout, if any, still applies; leave
	// it zero and let the tool timeouts do the bounding.
	Client *http.Client
	// Logger receives one debug line per call. Nil discards. Arguments,
	// results, webhook URLs, header values and secrets are never logged.
	Logger *slog.Logger
	// Now stamps webhook-timestamp. Nil means time.Now; tests set it.
	Now func() time.Time
}

// Host is the registry of server tools and runs their calls.
//
// It is safe for concurrent use. The registry is an immutable snapshot
// swapped atomically: Execute, Lookup and Tools read it without locking,
// and [Host.Register] / [Host.Remove] (the admin API, MCP servers coming
// and going) build a new snapshot under a writers' mutex. A call already
// running keeps the tool it started with.
type Host struct {
	client      *http.Client
	ownClient   bool
	log         *slog.Logger
	now         func() time.Time
	toolTimeout time.Duration

	mu  sync.Mutex // serialises writers of reg
	reg atomic.Pointer[registry]
}

// registry is one immutable view of the tools; never modified once stored.
type registry struct {
	names []string // registration order: config order, then runtime tools
	tools map[string]*entry
}

// entry is one registered tool: what the model sees, its compiled schema
// and its executor.
type entry struct {
	tool   Tool
	schema *jsonschema.Schema
	exec   executor
}

// New builds a Host from the configured tools, compiling every schema
// once. It reports every bad tool, not just the first.
//
// Per tool: a missing parameters schema means {"type":"object",
// "properties":{}}; a webhook secret of the form "whsec_<base64>" is
// base64-decoded after the prefix (the Standard Webhooks form, so secrets
// made for its libraries work unchanged), any other secret is used as its
// raw bytes; the tool's headers are sent as configured except
// Content-Type, User-Agent, X-Request-Id and webhook-*, which toolstream
// sets itself.
func New(tools []config.Tool, opts Options) (*Host, error) {
	h := &Host{
		client:      opts.Client,
		log:         opts.Logger,
		now:         opts.Now,
		toolTimeout: opts.ToolTimeout,
	}
	if h.client == nil {
		h.client, h.ownClient = defaultClient(), true
	} else {
		c := *h.client // the caller's client is theirs: change a copy
		h.client = &c
	}
	h.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.now == nil {
		h.now = time.Now
	}
	if h.toolTimeout <= 0 {
		h.toolTimeout = DefaultToolTimeout
	}

	reg := &registry{tools: make(map[string]*entry, len(tools))}
	var errs []error
	for i, t := range tools {
		e, err := h.build(t)
		if err == nil && reg.tools[t.Name] != nil {
			err = errors.New("duplicate tool name")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("tools[%d] %q: %w", i, t.Name, err))
			continue
		}
		reg.names = append(reg.names, t.Name)
		reg.tools[t.Name] = e
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	h.reg.Store(reg)
	return h, nil
}

// defaultClient is a pooled keep-alive client for webhooks. It has no
// overall Timeout: each call's context carries the tool's timeout.
func defaultClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   16, // the default 2 is too few for parallel_tools
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}}
}

// build checks a configured tool and makes its registry entry.
func (h *Host) build(t config.Tool) (*entry, error) {
	if t.Name == "" {
		return nil, errors.New("name is empty")
	}
	params := slices.Clone(t.Parameters)
	if len(params) == 0 {
		params = slices.Clone(defaultParameters)
	}
	sch, err := compileSchema(t.Name, params)
	if err != nil {
		return nil, err
	}
	if t.Webhook == nil {
		return nil, errors.New("webhook: required")
	}
	u, err := url.Parse(t.Webhook.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("webhook.url: must be an absolute http or https URL")
	}
	w := &webhook{
		url:        t.Webhook.URL,
		timeout:    t.Webhook.Timeout,
		idempotent: t.Idempotent,
		maxResult:  t.MaxResultBytes.Int(),
		client:     h.client,
		now:        h.now,
	}
	if w.timeout <= 0 {
		w.timeout = h.toolTimeout
	}
	if w.maxResult <= 0 {
		w.maxResult = DefaultMaxResultBytes
	}
	if len(t.Webhook.Headers) > 0 {
		w.headers = make(http.Header, len(t.Webhook.Headers))
		for k, v := range t.Webhook.Headers {
			w.headers.Set(k, v.Value())
		}
	}
	if t.Webhook.Secret != "" {
		if w.key, err = signingKey(t.Webhook.Secret.Value()); err != nil {
			return nil, fmt.Errorf("webhook.secret: %w", err)
		}
	}
	return &entry{
		tool:   Tool{Name: t.Name, Description: t.Description, Parameters: params},
		schema: sch,
		exec:   w,
	}, nil
}

// Register adds a tool, or replaces the tool of the same name in place
// (PUT semantics, for the admin API). The tool is checked and its schema
// compiled before anything changes; calls already running finish with the
// tool they started with.
func (h *Host) Register(t config.Tool) error {
	e, err := h.build(t)
	if err != nil {
		return fmt.Errorf("registering tool %q: %w", t.Name, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.reg.Load()
	next := &registry{names: slices.Clone(old.names), tools: make(map[string]*entry, len(old.tools)+1)}
	for name, oe := range old.tools {
		next.tools[name] = oe
	}
	if _, exists := next.tools[t.Name]; !exists {
		next.names = append(next.names, t.Name)
	}
	next.tools[t.Name] = e
	h.reg.Store(next)
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
	next := &registry{tools: make(map[string]*entry, len(old.tools))}
	for _, n := range old.names {
		if n != name {
			next.names = append(next.names, n)
			next.tools[n] = old.tools[n]
		}
	}
	h.reg.Store(next)
	return true
}

// Tools returns the registered tools in registration order (config order,
// then runtime tools). The slice is the caller's; Parameters is shared and
// must not be modified.
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

// Close releases idle webhook connections of the default client. The Host
// stays usable; a caller-supplied client is left alone.
func (h *Host) Close() error {
	if h.ownClient {
		h.client.CloseIdleConnections()
	}
	return nil
}

// Execute runs one call (SPEC §7): it finds the tool, coerces and validates
// the arguments, and runs the executor.
//
// A tool failure (unknown tool, bad arguments, webhook non-2xx, timeout,
// transport failure) is a Result with Err set and a nil error: the model
// reads it and the turn goes on. The error is non-nil only when ctx is
// done, i.e. the client went away; the Result is then StatusCancelled with
// code CANCELLED and the error wraps ctx.Err().
func (h *Host) Execute(ctx context.Context, call Call) (Result, error) {
	start := time.Now()
	res, attempts, err := h.execute(ctx, call)
	res.Duration = time.Since(start)
	if h.log.Enabled(ctx, slog.LevelDebug) {
		attrs := []slog.Attr{
			slog.String("tool", call.Name), slog.String("call_id", call.ID),
			slog.String("status", res.Status), slog.Int64("duration_ms", res.Duration.Milliseconds()),
			slog.Int("attempts", attempts),
		}
		if res.Err != nil {
			attrs = append(attrs, slog.String("code", res.Err.Code))
		}
		h.log.LogAttrs(ctx, slog.LevelDebug, "tool call", attrs...)
	}
	return res, err
}

func (h *Host) execute(ctx context.Context, call Call) (Result, int, error) {
	if ctx.Err() != nil {
		res, err := cancelled(ctx, call, call.Arguments)
		return res, 0, err
	}
	reg := h.reg.Load()
	e, ok := reg.tools[call.Name]
	if !ok {
		return ErrorResult(call, CodeToolNotFound, NotFoundMessage(call.Name, reg.names)), 0, nil
	}
	args, terr := prepareArguments(e.schema, call.Arguments)
	if terr != nil {
		res := ErrorResult(call, terr.Code, terr.Message)
		if args != nil {
			res.Arguments = args
		}
		return res, 0, nil
	}

	out := e.exec.execute(ctx, call, args)
	if out.err != nil && ctx.Err() != nil {
		// Failed because the client left: say so, not "TIMEOUT" or a
		// transport error. A call that succeeded anyway keeps its result.
		res, err := cancelled(ctx, call, args)
		return res, out.attempts, err
	}
	if out.err != nil {
		res := ErrorResult(call, out.err.Code, out.err.Message)
		res.Arguments = args
		return res, out.attempts, nil
	}
	return Result{
		CallID:    call.ID,
		Name:      call.Name,
		Arguments: args,
		Content:   out.content,
		IsJSON:    out.isJSON,
		Truncated: out.truncated,
		Status:    StatusOK,
	}, out.attempts, nil
}

func cancelled(ctx context.Context, call Call, args json.RawMessage) (Result, error) {
	res := ErrorResult(call, CodeCancelled, "the call was cancelled because the client went away")
	res.Arguments = args
	return res, fmt.Errorf("executing tool %q (call %s): %w", call.Name, call.ID, ctx.Err())
}

// NotFoundMessage is the TOOL_NOT_FOUND message: it lists the available
// tools so the model can correct the name (SPEC §7). The loop uses it too,
// for names outside the tools a turn may run.
func NotFoundMessage(name string, available []string) string {
	msg := "unknown tool " + strconv.Quote(name)
	if len(available) == 0 {
		return msg + "; no server tools are available"
	}
	return msg + "; available tools: " + strings.Join(available, ", ")
}
