// Package mcpserve is toolstream as an MCP server: POST /mcp speaks MCP's
// Streamable HTTP transport (the official Go SDK's server) in both its
// forms — the sessions of 2025-11-25 and older, and the stateless
// requests of 2026-07-28, chosen per request by what the client sends —
// and offers MCP clients the server tools their client key may use. A call runs through the same tool host as a turn's calls, so
// validation, approvals, the write-ahead audit log and retries apply the
// same way.
//
// Each client key gets one SDK server holding the tools of its scope; the
// key's sessions share it. When the tool host's set changes, every server
// is brought in line, and the SDK tells the sessions with
// notifications/tools/list_changed.
package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/proxy/keys"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Source is the audit log's source of the calls made through /mcp.
const Source = "mcp"

// Tools is what the endpoint needs of the tool host: the tools, and a
// way to run a call. toolhost.Host implements it.
type Tools interface {
	Tools() []toolhost.Tool
	Execute(ctx context.Context, call toolhost.Call) (toolhost.Result, error)
}

// Approvals decides actions; an MCP client's answer to an elicitation is
// a decision like one sent to /v1/actions. toolhost.Host implements it.
type Approvals interface {
	Decide(ctx context.Context, id string, approve bool, d toolhost.Decider, reason string) (store.Action, error)
}

// Options configure a [Handler]. Tools is required; the rest may be zero.
type Options struct {
	Tools Tools
	// Approvals, when set, lets clients that declare the elicitation
	// capability approve or deny a held call themselves.
	Approvals Approvals
	// Version is reported to clients as the server's version.
	Version string
	// Logger receives the SDK's log; nil discards.
	Logger *slog.Logger
	// ProgressInterval is how often a call held for approval sends
	// notifications/progress to a client that asked for progress; zero
	// means 5s. The first is sent when the wait begins.
	ProgressInterval time.Duration
	// SessionTimeout closes a session no request has used for this long
	// (an open GET stream does not count); zero means an hour. Clients
	// that leave without a DELETE — the inspector's CLI, a killed
	// desktop app — would otherwise hold their session until shutdown.
	// A client that comes back gets 404 and starts a new session, as
	// the transport asks of it.
	SessionTimeout time.Duration
	// MaxSessions caps the sessions kept in all, and MaxSessionsPerKey
	// those of one client key; zero means 1000 and 100. A new session
	// past a cap takes the place of the one idle longest (see
	// [Handler.Serve]).
	MaxSessions, MaxSessionsPerKey int
	// Now is the clock of the keys' limits; nil uses time.Now.
	Now func() time.Time
}

// Handler serves /mcp. Create it with [New]; call [Handler.ToolsChanged]
// whenever the tool host's set changes and [Handler.Close] at shutdown.
type Handler struct {
	opts Options
	// sdkLog is opts.Logger as the SDK gets it (sdklog.go).
	sdkLog *slog.Logger
	// seal seals the requestState of a call a client is asked about
	// (input.go).
	seal stateSeal
	// sdk keeps sessions (2025-11-25 and older); stateless answers the
	// revisions without them. Both serve the same servers.
	sdk, stateless *mcp.StreamableHTTPHandler

	sessions *sessions

	mu     sync.Mutex
	scopes map[string]*scope // by key name ("" without client keys)
}

// New builds the handler.
func New(opts Options) *Handler {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = time.Hour
	}
	if opts.ProgressInterval <= 0 {
		opts.ProgressInterval = 5 * time.Second
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 1000
	}
	if opts.MaxSessionsPerKey <= 0 {
		opts.MaxSessionsPerKey = 100
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	h := &Handler{opts: opts, sdkLog: slog.New(sdkLog{opts.Logger.Handler()}), seal: newStateSeal(),
		scopes: map[string]*scope{}, sessions: newSessions(opts.MaxSessions, opts.MaxSessionsPerKey)}
	server := func(r *http.Request) *mcp.Server {
		sc, _ := r.Context().Value(scopeKey{}).(*scope)
		if sc == nil {
			return nil
		}
		return sc.server
	}
	h.sdk = mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{Logger: h.sdkLog, SessionTimeout: opts.SessionTimeout})
	// A stateless request's response stream is the request: a client
	// that closes it has cancelled the call, so the call's context ends
	// with the HTTP request's.
	h.stateless = mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{Logger: h.sdkLog,
		Stateless: true, PropagateRequestCancellation: true})
	return h
}

type scopeKey struct{}

// Serve answers one HTTP request of the transport for client key k (nil
// when the proxy has no client keys). A POST of the stateless revision
// (2026-07-28: its MCP-Protocol-Version header, or its _meta) goes to the
// SDK's stateless handler; everything else keeps to sessions. A session
// belongs to the key that opened it: another key presenting its id is
// told there is no such session, so a session id never widens a scope.
//
// The key's limits apply: each initialize and tools/call counts as a
// request against requests_per_minute (over it: 429 with Retry-After,
// before the SDK sees the request), and a tools/call holds one of the
// key's concurrent_turns while it runs. Sessions are capped per key and
// in all (Options.MaxSessions).
func (h *Handler) Serve(w http.ResponseWriter, r *http.Request, k *keys.Key) {
	sc := h.scopeOf(k)
	var msgs messages
	if r.Method == http.MethodPost {
		var ok bool
		if msgs, ok = readMessages(w, r); !ok {
			return
		}
		if stateless(r, msgs) {
			h.serveStateless(w, r, k, sc, msgs)
			return
		}
	}
	id := r.Header.Get("Mcp-Session-Id")
	if id != "" && !sc.owns(id) {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	if !h.admit(w, k, msgs) {
		return
	}
	r = r.WithContext(context.WithValue(r.Context(), scopeKey{}, sc))
	if id != "" {
		defer h.sessions.use(id)()
		h.sdk.ServeHTTP(w, r)
		return
	}
	if msgs.initialize == 0 {
		h.sdk.ServeHTTP(w, r)
		return
	}
	done, err := h.sessions.reserve(sc)
	if err != nil {
		refuseSession(w, msgs.firstID, err)
		return
	}
	rw := &registering{ResponseWriter: w, done: done}
	h.sdk.ServeHTTP(rw, r)
	rw.register()
}

// serveStateless answers a POST of the revision without sessions: the
// key's limits apply as to any request, an Mcp-Session-Id header is
// ignored (the revision has none), and a subscriptions/listen stream
// holds one of the places sessions are capped to while it is open.
func (h *Handler) serveStateless(w http.ResponseWriter, r *http.Request, k *keys.Key, sc *scope, msgs messages) {
	if !h.admit(w, k, msgs) {
		return
	}
	if msgs.listens > 0 {
		end, err := h.sessions.listen(sc)
		if err != nil {
			refuseSession(w, msgs.firstID, err)
			return
		}
		defer end()
	}
	r = r.WithContext(context.WithValue(r.Context(), scopeKey{}, sc))
	h.stateless.ServeHTTP(w, r)
}

// ToolsChanged brings every key's server in line with the tool host; the
// SDK then sends notifications/tools/list_changed to their sessions.
func (h *Handler) ToolsChanged() {
	h.mu.Lock()
	defer h.mu.Unlock()
	tools := h.opts.Tools.Tools()
	for _, sc := range h.scopes {
		sc.sync(tools)
	}
}

// Close ends every session, so no SDK goroutine outlives the server.
func (h *Handler) Close() {
	h.mu.Lock()
	scopes := make([]*scope, 0, len(h.scopes))
	for _, sc := range h.scopes {
		scopes = append(scopes, sc)
	}
	h.mu.Unlock()
	for _, sc := range scopes {
		for ss := range sc.server.Sessions() {
			_ = ss.Close()
		}
	}
}

// scopeOf returns k's server, made on first use. A PATCH of the key
// hands in a new *keys.Key under the same name: its scope is applied
// before the request is served.
func (h *Handler) scopeOf(k *keys.Key) *scope {
	name := ""
	if k != nil {
		name = k.Name
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	sc := h.scopes[name]
	if sc == nil {
		sc = &scope{h: h, name: name, tools: map[string]string{}}
		sc.server = mcp.NewServer(&mcp.Implementation{Name: "toolstream", Version: h.opts.Version}, &mcp.ServerOptions{
			Logger:       h.sdkLog,
			SetCacheable: setCacheable,
			// Clients are told of list changes even while the key may
			// use no tool yet: a registration may give it one.
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
		})
		h.scopes[name] = sc
	} else if sc.key == k {
		return sc
	}
	sc.key = k
	sc.sync(h.opts.Tools.Tools())
	return sc
}

// scope is one client key's SDK server and the tools it holds.
type scope struct {
	h      *Handler
	name   string
	server *mcp.Server

	// key and tools are guarded by h.mu. tools maps each tool the server
	// holds to what it was made from, so a change is seen.
	key   *keys.Key
	tools map[string]string
}

// currentKey is the key as last seen; the scope a call is held to.
func (sc *scope) currentKey() *keys.Key {
	sc.h.mu.Lock()
	defer sc.h.mu.Unlock()
	return sc.key
}

func (sc *scope) owns(id string) bool {
	for ss := range sc.server.Sessions() {
		if ss.ID() == id {
			return true
		}
	}
	return false
}

// sessionIDs are the ids of the scope's live sessions.
func (sc *scope) sessionIDs() map[string]bool {
	ids := map[string]bool{}
	for ss := range sc.server.Sessions() {
		ids[ss.ID()] = true
	}
	return ids
}

// close ends session id, if it is still open.
func (sc *scope) close(id string) {
	for ss := range sc.server.Sessions() {
		if ss.ID() == id {
			_ = ss.Close()
			return
		}
	}
}

// sync adds the tools of the key's scope the server lacks (or holds in
// an older form) and removes the others. The caller holds h.mu.
func (sc *scope) sync(all []toolhost.Tool) {
	want := map[string]bool{}
	for _, t := range all {
		if sc.key != nil && !sc.key.AllowsTool(t.Name) {
			continue
		}
		mt, ok := sdkTool(t)
		if !ok {
			sc.h.opts.Logger.Warn("tool not offered over MCP: its parameters are not an object schema", "tool", t.Name)
			continue
		}
		want[t.Name] = true
		fp := fingerprint(mt)
		if sc.tools[t.Name] == fp {
			continue
		}
		sc.tools[t.Name] = fp
		sc.server.AddTool(mt, sc.callTool(t.Name))
	}
	var gone []string
	for n := range sc.tools {
		if !want[n] {
			gone = append(gone, n)
			delete(sc.tools, n)
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		sc.server.RemoveTools(gone...)
	}
}

// sdkTool is t as MCP lists it. The SDK refuses an input schema that is
// not an object schema; such a tool is not offered.
func sdkTool(t toolhost.Tool) (*mcp.Tool, bool) {
	var s struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(t.Parameters, &s) != nil || s.Type != "object" {
		return nil, false
	}
	mt := &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: json.RawMessage(t.Parameters)}
	if t.Idempotent {
		mt.Annotations = &mcp.ToolAnnotations{IdempotentHint: true}
	}
	return mt, true
}

func fingerprint(t *mcp.Tool) string {
	b, _ := json.Marshal(t)
	return string(b)
}

// unknownTool is the SDK's own answer to a tools/call of a tool it does
// not hold; a tool outside the key's scope, or gone since the list, gets
// the same, so nothing tells it from one that does not exist.
func unknownTool(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
}
