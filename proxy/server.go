// Package proxy is toolstream's HTTP surface, and the only package that
// imports echo: the routes of the three client protocols (chat
// completions, Responses and Messages) run through one turn route,
// serveTurn (turn_route.go), which holds the commit point; each protocol
// reads its request and writes its answer and errors behind a small
// interface (proxy/internal/exchange): chat's in chat.go, the others in
// proxy/responses and proxy/messages, which also encode their events.
// Around it: client and admin auth, body limits, key scopes and limits
// (the key table is proxy/keys), the SSE writer, the error mapping
// (errors.go), the admin API (keys, runtime tools, the audit log),
// approvals (/v1/actions), stored responses, pass-through routes,
// /v1/models, /mcp (served by proxy/mcpserve), the console page
// (proxy/console), and health, readiness and metrics. The upstream client
// is proxy/upstream; the turn itself runs in loop.
package proxy

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/history"
	"github.com/toolstream/toolstream/proxy/console"
	"github.com/toolstream/toolstream/proxy/internal/exchange"
	"github.com/toolstream/toolstream/proxy/internal/leftout"
	"github.com/toolstream/toolstream/proxy/internal/live"
	"github.com/toolstream/toolstream/proxy/keys"
	"github.com/toolstream/toolstream/proxy/mcpserve"
	"github.com/toolstream/toolstream/proxy/messages"
	"github.com/toolstream/toolstream/proxy/responses"
	"github.com/toolstream/toolstream/proxy/upstream"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Options are what a Server needs besides its configuration. The zero value
// is usable.
type Options struct {
	// Logger receives one line per turn and request problems; nil
	// discards.
	Logger *slog.Logger
	// Ready reports whether dependencies (storage) are ready, for /readyz;
	// its error (a full disk, failing writes) is the 503's reason, shown
	// to anyone who reaches the port, so it names no paths. Nil means
	// always ready.
	Ready func() error
	// Reachable reports an error wrapping store.ErrUnavailable while a
	// shared database cannot be reached: turns are refused with 503
	// until it is back. It is called once per turn, so it must be cheap.
	// Nil: storage is embedded and always reachable.
	Reachable func() error
	// StorageErrors counts failed storage writes, for the
	// toolstream_storage_errors_total counter; called at every scrape,
	// it must be safe for concurrent use. Nil reports 0.
	StorageErrors func() uint64
	// NewID mints ids; nil uses loop.NewID. Tests pin it.
	NewID func(prefix string) string
	// Now is the clock for "created" when an upstream sends none; nil
	// uses time.Now. Tests pin it.
	Now func() time.Time
	// Version is the release /mcp reports to MCP clients as its
	// serverInfo.version.
	Version string
	// Tools are the server tools turns may run; nil means none.
	Tools Tools
	// Modes remembers upstreams that rejected native tools (auto mode);
	// nil remembers nothing.
	Modes loop.ModeMemory
	// History stores turns and stitches them back into later requests
	// (docs/operations.md); nil does neither.
	History history.Store
	// Responses keeps the answers of /v1/responses for
	// previous_response_id and GET /v1/responses/{id}; nil keeps none.
	Responses Responses
	// Records serves the actions API and the audit log (GET
	// /v1/actions, /admin/calls); nil answers them with an error.
	Records Records
	// Approvals decides actions (POST /v1/actions/{id}/approve|deny).
	Approvals Approvals
	// ApprovalsPending reports how many calls wait for an approval, for
	// the toolstream_approvals_pending gauge; it is called at every
	// scrape of /metrics and must be safe for concurrent use. Nil reports
	// 0.
	ApprovalsPending func() int
	// MCPServers reports the MCP servers' states, for /readyz, the
	// toolstream_mcp_server_up gauge and /admin/tools; called per request
	// and scrape, it must be safe for concurrent use. Nil: no MCP servers.
	MCPServers func() []MCPServerState
	// RuntimeTools serves /admin/tools; nil leaves those routes out.
	RuntimeTools RuntimeTools
	// Keys stores the client keys created through /admin/keys; nil
	// leaves those routes out.
	Keys KeyStore
	// Usage keeps usage per client key and day, written as each turn
	// ends and served at GET /admin/usage; nil keeps none and leaves the
	// route out.
	Usage UsageStore
	// Changes is the storage's change feed: runtime keys created,
	// changed or deleted through another replica reach this one through
	// it (with Keys). Nil follows nothing: this process's own changes
	// apply as they are made.
	Changes toolhost.Feed
	// Tracing, when set, traces every API request (otelhttp, joining a
	// caller's W3C traceparent) and, under it, each turn, round and tool
	// call (loop.Runner.Tracer); upstream requests carry the trace on.
	// Nil (tracing off) wraps nothing and makes no spans.
	Tracing trace.TracerProvider
	// MCPMaxSessions caps /mcp's sessions in all, MCPMaxSessionsPerKey
	// those of one client key; zero means 1000 and 100. A new session
	// past a cap takes the place of the one idle longest.
	MCPMaxSessions, MCPMaxSessionsPerKey int
}

// Tools is what the proxy needs of the tool host: the tools to offer and
// a way to run their calls. toolhost.Host implements it.
type Tools interface {
	loop.Executor
	Tools() []toolhost.Tool
}

// Server serves the OpenAI-compatible API. Create it with [New]; it is an
// http.Handler. [Server.Reload] swaps its configuration while it serves;
// [Server.CutStreams] ends what still runs at the end of a shutdown.
type Server struct {
	log  *slog.Logger
	echo *echo.Echo
	// handler is echo, traced when Options.Tracing is set.
	handler   http.Handler
	runner    *loop.Runner
	ready     func() error
	reachable func() error
	tools     Tools
	modes     loop.ModeMemory
	history   history.Store
	responses Responses
	// protocols are the turn routes' protocols by route path, for
	// errorHandler; written once, by routes.
	protocols map[string]exchange.Protocol
	// leftOut logs what the turn routes left out of requests, once per
	// key and kind an hour.
	leftOut   *leftout.Logger
	records   Records
	approvals Approvals
	runtime   RuntimeTools
	mcp       func() []MCPServerState
	metrics   *metrics
	// keys are the client keys, from auth.keys and /admin/keys; a reload
	// replaces the first (keys.Table.SetConfig).
	keys     *keys.Table
	keyStore KeyStore
	stopKeys func() // ends the following of Changes
	usage    UsageStore
	// live shows the turns in progress (GET /admin/live); liveKeepalive
	// is how often its quiet streams get a comment.
	live          *live.Registry
	liveKeepalive time.Duration
	// mcpServe serves /mcp; stopWatch ends its following of the tools.
	mcpServe  *mcpserve.Handler
	stopWatch func()
	// tokens answers count_tokens, remembering which upstreams have a
	// /tokenize (count_tokens.go).
	tokens tokenCounter
	// remote connects the MCP servers requests name (reqmcp.go).
	remote *remoteMCP

	// state is what a reload may change; each request reads it once
	// (stateOf), so a turn keeps the configuration it started with.
	state    atomic.Pointer[state]
	reloadMu sync.Mutex // serialises Reload
	inflight inflight
}

// New builds a Server from a validated configuration.
func New(cfg *config.Config, opts Options) (*Server, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = slog.New(MaskingHandler(log.Handler(), cfg))
	s := &Server{
		log:       log,
		runner:    &loop.Runner{Log: log, NewID: opts.NewID, Now: opts.Now},
		ready:     opts.Ready,
		reachable: opts.Reachable,
		tools:     opts.Tools,
		modes:     opts.Modes,
		history:   opts.History,
		responses: opts.Responses,
		records:   opts.Records,
		approvals: opts.Approvals,
		runtime:   opts.RuntimeTools,
		mcp:       opts.MCPServers,
		keyStore:  opts.Keys,
		usage:     opts.Usage,
		leftOut:   leftout.New(log, opts.Now),
		live:      live.New(opts.Now),
		remote:    newRemoteMCP(cfg.Auth.MCPAllow, log),

		liveKeepalive: liveKeepalive,

		inflight: inflight{active: map[uint64]context.CancelCauseFunc{}},
	}
	var runtimeKeys []store.RuntimeKey
	if opts.Keys != nil {
		var err error
		if runtimeKeys, err = opts.Keys.Keys(context.Background()); err != nil {
			return nil, fmt.Errorf("reading the runtime keys: %w", err)
		}
	}
	s.keys = keys.NewTable(cfg.Auth.Keys, runtimeKeys, opts.Now)
	if opts.Changes != nil && opts.Keys != nil {
		s.stopKeys = opts.Changes.Subscribe(s.followKeys)
	}
	s.metrics = newMetrics(opts, func() []*upstream.Client { return s.state.Load().upstreams })
	st, err := newState(cfg, log, nil, s.metrics)
	if err != nil {
		return nil, err
	}
	s.state.Store(st)
	s.newMCPServe(opts.MCPMaxSessions, opts.MCPMaxSessionsPerKey, opts.Version)
	s.echo = s.routes()
	s.handler = s.echo
	if opts.Tracing != nil {
		s.runner.Tracer = opts.Tracing.Tracer(tracerName)
		s.handler = traced(s.echo, opts.Tracing)
	}
	return s, nil
}

// ServeHTTP implements http.Handler. Every request runs with the
// configuration current when it arrived and a context that
// [Server.CutStreams] can cancel.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, life := s.inflight.begin(r.Context(), s.mayDetach(r))
	defer life.handlerReturned()
	ctx = context.WithValue(ctx, stateKey{}, s.state.Load())
	s.handler.ServeHTTP(w, r.WithContext(ctx))
}

func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = s.errorHandler
	e.JSONSerializer = jsonSerializer{}
	e.Use(s.recoverPanic, s.refuseAmbiguousFraming, s.limitBody)

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", s.metrics.handler(), s.metricsAuth)

	// The console needs no key to load: the page asks for keys and sends
	// them with its API requests, like any other client.
	page := echo.WrapHandler(console.New())
	e.GET("/", page)
	e.GET(console.AssetPrefix+"*", page)

	actions := e.Group("/v1/actions", s.requireClientOrAdmin)
	actions.GET("", s.listActions)
	actions.GET("/:id", s.getAction)
	actions.POST("/:id/approve", s.approveAction)
	actions.POST("/:id/deny", s.denyAction)

	admin := e.Group("/admin", s.requireAdmin)
	admin.GET("/calls", s.listCalls)
	admin.GET("/calls/:id", s.getCall)
	admin.GET("/live", s.serveLive)
	if s.usage != nil {
		admin.GET("/usage", s.listUsage)
	}
	if s.runtime != nil {
		s.adminToolRoutes(admin)
	}
	if s.keyStore != nil {
		s.adminKeyRoutes(admin)
	}

	e.Match([]string{http.MethodGet, http.MethodPost, http.MethodDelete}, "/mcp", s.serveMCP, s.requireKey)

	v1 := e.Group("/v1", s.requireKey)
	s.protocols = map[string]exchange.Protocol{}
	s.turnRoute(v1, "/v1", "/chat/completions", chatProtocol{})
	s.turnRoute(v1, "/v1", "/messages", &messages.Protocol{History: s.history, NewID: s.newID})
	rp := &responses.Protocol{Store: s.responses, NewID: s.newID, Now: s.now, Log: s.log}
	if s.records != nil && s.approvals != nil {
		rp.Approvals = wireApprovals{Records: s.records, decide: s.approvals}
	}
	s.turnRoute(v1, "/v1", "/responses", rp)
	v1.GET("/responses", s.responsesGET)
	v1.GET("/responses/:id", s.getResponse)
	v1.DELETE("/responses/:id", s.deleteResponse)
	v1.GET("/models", s.models)
	s.countTokensRoute(v1)
	v1.Any("/*", s.passThrough, s.admit)
	return e
}

// recoverPanic turns a handler panic into a 500 in OpenAI's shape and a log
// line. http.ErrAbortHandler is re-raised: it is how a stream is aborted.
func (s *Server) recoverPanic(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if r == http.ErrAbortHandler {
				panic(r)
			}
			s.log.Error("handler panic", "path", c.Request().URL.Path, "panic", fmt.Sprint(r))
			err = fmt.Errorf("panic: %v", r)
		}()
		return next(c)
	}
}

func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readyz is ready when the configuration is loaded (it is, or there would
// be no Server), storage answers, and every upstream has a server its
// health checks hold up; degraded (still 200) when some upstream or MCP
// server is down, unavailable (503) when no upstream is up.
func (s *Server) readyz(c echo.Context) error {
	if s.ready != nil {
		if err := s.ready(); err != nil {
			return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": err.Error()})
		}
	}
	ups, upsDown := upstreamsHealth(s.state.Load())
	if len(ups) > 0 && len(upsDown) == len(ups) {
		// No upstream has a server up: no turn can be served here, so a
		// load balancer should send them elsewhere.
		return c.JSON(http.StatusServiceUnavailable, map[string]any{"status": "degraded",
			"reason": "no upstream has a healthy server", "degraded_upstreams": upsDown, "upstreams": ups})
	}
	states := s.mcpStates()
	down := degraded(states)
	out := map[string]any{"status": "ready", "upstreams": ups}
	if states != nil {
		out["mcp_servers"] = states
	}
	if len(down) > 0 || len(upsDown) > 0 {
		// Still 200: the proxy serves every turn but those of the
		// upstreams named (which their fallbacks may take), and without
		// the tools of the MCP servers named; taking it out of a load
		// balancer would lose more than those.
		out["status"] = "degraded"
	}
	if len(down) > 0 {
		out["degraded"] = down
	}
	if len(upsDown) > 0 {
		out["degraded_upstreams"] = upsDown
	}
	return c.JSON(http.StatusOK, out)
}

// Close stops the upstreams' health checks and releases their idle
// connections. In-flight requests are not
// affected; shut the http.Server down first.
func (s *Server) Close() {
	if s.stopKeys != nil {
		s.stopKeys()
	}
	s.closeMCPServe()
	_ = s.remote.pool.Close()
	for _, u := range s.state.Load().upstreams {
		u.Close()
	}
}
