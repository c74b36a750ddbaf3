package proxy

import (
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/upstream"
	"github.com/toolstream/toolstream/toolhost"
)

// Statuses of toolstream_turns_total, and of the turn's log line.
const (
	turnOK           = "ok"
	turnError        = "error"
	turnClientClosed = "client_closed"
	turnShutdown     = "shutdown"
)

// Kinds of toolstream_tokens_total.
const (
	tokensPrompt     = "prompt"
	tokensCompletion = "completion"
	tokensCached     = "cached"
)

// unknownTool labels calls of a tool the proxy does not have: the model
// may write any name, and a label value the model chooses would let one
// turn create unbounded series.
const unknownTool = "unknown"

// durationBuckets spans a loopback webhook (sub-millisecond) to a long
// prompt processed by a local model before its first byte (minutes).
var durationBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// metrics are one Server's Prometheus collectors, in a registry of its own
// so that tests and several Servers in one process do not collide. Label
// values come only from the config (upstream and tool names) and from
// fixed status sets, and the client key's id, which the proxy's keys
// decide; client-supplied strings such as the model are never labels.
type metrics struct {
	reg *prometheus.Registry

	turns         *prometheus.CounterVec   // upstream, status
	rounds        *prometheus.CounterVec   // upstream
	toolCalls     *prometheus.CounterVec   // tool, status
	tokens        *prometheus.CounterVec   // upstream, key, kind
	ttfb          *prometheus.HistogramVec // upstream
	toolDuration  *prometheus.HistogramVec // tool
	activeStreams prometheus.Gauge
	streamBytes   prometheus.Counter
}

// newMetrics registers toolstream's metrics (docs/operations.md) plus the Go
// and process collectors. opts' ApprovalsPending, MCPServers and
// StorageErrors, when set, are read at every scrape, as is upstreams.
func newMetrics(opts Options, upstreams func() []*upstream.Client) *metrics {
	approvalsPending, mcpStates := opts.ApprovalsPending, opts.MCPServers
	m := &metrics{
		reg: prometheus.NewRegistry(),
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolstream_turns_total",
			Help: "Chat-completion turns by upstream and how they ended (ok, error, client_closed, shutdown).",
		}, []string{"upstream", "status"}),
		rounds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolstream_rounds_total",
			Help: "Upstream rounds opened by turns.",
		}, []string{"upstream"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolstream_tool_calls_total",
			Help: `Server-tool calls by tool and status (ok, error, denied, cancelled); tool="unknown" for names the proxy does not have.`,
		}, []string{"tool", "status"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolstream_tokens_total",
			Help: `Tokens the upstreams reported for turns' rounds, by upstream, client key (empty without auth.keys) and kind (prompt, completion, and cached: the part of prompt the upstream's prompt cache served); counted whether or not the client asked for usage.`,
		}, []string{"upstream", "key", "kind"}),
		ttfb: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "toolstream_upstream_ttfb_seconds",
			Help:    "Time from sending a round's request to the first byte of the upstream's answer.",
			Buckets: durationBuckets,
		}, []string{"upstream"}),
		toolDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "toolstream_tool_duration_seconds",
			Help:    "Wall time of server-tool calls that ran, retries included.",
			Buckets: durationBuckets,
		}, []string{"tool"}),
		activeStreams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "toolstream_active_streams",
			Help: "Streaming turns in progress.",
		}),
		streamBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "toolstream_stream_bytes_total",
			Help: "Bytes written to clients' event streams.",
		}),
	}
	pending := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "toolstream_approvals_pending",
		Help: "Tool calls waiting for an approval decision.",
	}, func() float64 {
		if approvalsPending == nil {
			return 0
		}
		return float64(approvalsPending())
	})
	// A counter the store keeps (a write fails wherever the store is
	// used: tool calls, approvals, history), read at each scrape.
	storageErrors := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "toolstream_storage_errors_total",
		Help: "Storage writes that failed, a full disk included; each failed the tool call or record it was for.",
	}, func() float64 {
		if opts.StorageErrors == nil {
			return 0
		}
		return float64(opts.StorageErrors())
	})
	m.reg.MustRegister(
		m.turns, m.rounds, m.toolCalls, m.tokens, m.ttfb, m.toolDuration,
		m.activeStreams, m.streamBytes, pending, storageErrors, newMCPUpCollector(mcpStates), newUpstreamUpCollector(upstreams),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// handler serves the registry in Prometheus' exposition formats.
func (m *metrics) handler() echo.HandlerFunc {
	return echo.WrapHandler(promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
}

// turnDone counts a finished turn: the turn, its rounds, its tokens
// (under key, and the upstream that served them: a fallback's when one
// took the turn), and each server call. known reports whether a tool name
// is one the proxy has.
func (m *metrics) turnDone(upstream, key, status string, rep loop.Report, known func(string) bool) {
	m.turns.WithLabelValues(upstream, status).Inc()
	m.rounds.WithLabelValues(upstream).Add(float64(rep.Rounds))
	if rep.UsageKnown {
		served := upstream
		if rep.Upstream != "" {
			served = rep.Upstream
		}
		m.tokens.WithLabelValues(served, key, tokensPrompt).Add(float64(rep.PromptTokens))
		m.tokens.WithLabelValues(served, key, tokensCompletion).Add(float64(rep.CompletionTokens))
		// Part of prompt, not more of it: the prompt tokens the
		// upstream's prefix cache served.
		m.tokens.WithLabelValues(served, key, tokensCached).Add(float64(rep.CachedTokens))
	}
	for _, c := range rep.Calls {
		if c.Client {
			continue // the client runs it; its name is the client's
		}
		tool := c.Name
		if !known(tool) {
			tool = unknownTool
		}
		m.toolCalls.WithLabelValues(tool, callStatus(c.Status)).Inc()
		// Only calls that ran are a tool's latency: one refused, denied
		// or cancelled before it started took no time of the tool's
		// (a denied call waited for a person, up to approval_timeout).
		if c.Executed {
			m.toolDuration.WithLabelValues(tool).Observe(c.Duration.Seconds())
		}
	}
}

// callStatus keeps the status label to its fixed set.
func callStatus(s string) string {
	switch s {
	case toolhost.StatusOK, toolhost.StatusDenied, toolhost.StatusCancelled:
		return s
	}
	return toolhost.StatusError
}

// metricsAuth guards /metrics when auth.metrics is "admin": an admin key
// is required, presented like a client key. With no admin keys configured
// nobody may read it.
func (s *Server) metricsAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if st := s.stateOf(c); st.cfg.Auth.Metrics == "admin" {
			k := presentedKey(c)
			if k == "" || st.adminKeys.open() || !st.adminKeys.check(k) {
				return errUnauthorized
			}
		}
		return next(c)
	}
}
