package config

import (
	"slices"
	"time"
)

// Upstream is one OpenAI-compatible model server, or a pool of servers
// that serve the same models (BaseURLs).
type Upstream struct {
	// Name identifies the upstream in logs, metrics, DefaultUpstream and
	// other upstreams' Fallbacks. Required, unique.
	Name string `yaml:"name"`
	// BaseURL is the API root including its version path, e.g.
	// "http://127.0.0.1:11434/v1": http or https, no user info (the
	// credentials go in APIKey or Headers), no fragment; a query (Azure's
	// "?api-version=…") is kept. Exactly one of BaseURL and BaseURLs is
	// set; read both through [Upstream.Servers].
	BaseURL string `yaml:"base_url"`
	// BaseURLs is a pool of servers for the same models (two vLLM
	// replicas, a row of Ollama boxes), each written like BaseURL; each
	// round goes to one of them, picked by Balance among those the health
	// check holds up. No duplicates.
	BaseURLs []string `yaml:"base_urls"`
	// Balance picks a pool's server for each round: [BalanceLeastBusy]
	// (default: fewest rounds in flight, ties in turn) or
	// [BalanceRoundRobin]. It changes nothing for a single BaseURL, so it
	// is allowed there.
	Balance string `yaml:"balance"`
	// HealthCheck keeps servers that stopped answering out of the pick,
	// for a pool and for a single BaseURL alike; it has no off switch,
	// because a dead server that is still picked fails rounds instead.
	HealthCheck HealthCheck `yaml:"health_check"`
	// Fallbacks name other upstreams to try, in order, when this one
	// cannot start a round: no connection, or 429, 500, 502, 503, 504 or
	// 529 before any body (never once a request body was written).
	// Only the listed upstreams are tried, not their own fallbacks, so a
	// cycle (a falls back to b, b to a) is allowed and tries each once.
	// Each must name another configured upstream, once.
	Fallbacks []string `yaml:"fallbacks"`
	// APIKey is sent as "Authorization: Bearer" to this upstream; none when
	// empty. The client's own key is never forwarded. No line breaks or
	// control characters: they would split the header.
	APIKey Secret `yaml:"api_key"`
	// Models are the models routed here: glob patterns (path.Match
	// syntax), written as strings, and aliases, written {name, model}.
	// Literal patterns and alias names are also listed by GET /v1/models.
	Models []Model `yaml:"models"`
	// ToolMode is native, text or auto. Default auto.
	ToolMode string `yaml:"tool_mode"`
	// TextFormat is the syntax text mode teaches: one of TextFormats.
	// Default hermes.
	TextFormat string `yaml:"text_format"`
	// ImplicitThink says the model's chat template opens <think> in the
	// prompt (Qwen3 thinking, DeepSeek-R1 distills, QwQ), so the reply
	// writes only the closing </think>: its content up to the first
	// </think> is reasoning, relayed as delta.reasoning_content, and no
	// call in it runs (docs/tool-calls.md). Default false.
	ImplicitThink bool `yaml:"implicit_think"`
	// Timeout bounds a whole round, from request to last byte.
	// Default 10m.
	Timeout time.Duration `yaml:"timeout"`
	// IdleTimeout fails a round whose stream sends nothing (no chunk, no
	// comment) for this long, and closes the connection: a stalled
	// upstream must not look alive until Timeout. Default 120s.
	IdleTimeout time.Duration `yaml:"idle_timeout"`
	// ConnectTimeout bounds dialing the upstream. Default 10s.
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
	// HeaderTimeout bounds the wait for response headers once the request
	// is sent; local servers may process a long prompt first. Default 5m.
	HeaderTimeout time.Duration `yaml:"header_timeout"`
	// Headers are added to every request to this upstream. Names are HTTP
	// tokens; values have no line breaks or control characters.
	Headers map[string]string `yaml:"headers"`
}

// HealthCheck is how an upstream's servers are probed: a GET of Path
// under each server's base URL every Interval.
type HealthCheck struct {
	// Interval is the time between two probes of one server. Default
	// 10s; must be positive.
	Interval time.Duration `yaml:"interval"`
	// Path is appended to the base URL's path ("/v1" + "/models"); the
	// base URL's query, if any, is kept. Default "/models", which every
	// OpenAI-compatible server answers without running a model. It starts
	// with "/" and has no query or fragment of its own.
	Path string `yaml:"path"`
}

// Balance values (upstreams[].balance).
const (
	// BalanceLeastBusy picks the server with the fewest rounds in flight;
	// ties go round-robin. A slow server (a long prompt, a smaller GPU)
	// gets fewer rounds than its share, instead of a queue.
	BalanceLeastBusy = "least_busy"
	// BalanceRoundRobin picks the servers in turn.
	BalanceRoundRobin = "round_robin"
)

// DefaultUpstreamEntry returns an upstream with every optional key at its
// default; entries of upstreams are decoded on top of it.
func DefaultUpstreamEntry() Upstream {
	return Upstream{
		Balance:        BalanceLeastBusy,
		HealthCheck:    HealthCheck{Interval: 10 * time.Second, Path: "/models"},
		ToolMode:       ToolModeAuto,
		TextFormat:     TextFormatHermes,
		Timeout:        10 * time.Minute,
		IdleTimeout:    120 * time.Second,
		ConnectTimeout: 10 * time.Second,
		HeaderTimeout:  5 * time.Minute,
	}
}

// Servers returns the base URLs of u's servers, as written: BaseURLs for
// a pool, else BaseURL alone; nil when neither is set (a config that
// does not validate). The slice is the caller's to keep.
func (u Upstream) Servers() []string {
	if len(u.BaseURLs) > 0 {
		return slices.Clone(u.BaseURLs)
	}
	if u.BaseURL != "" {
		return []string{u.BaseURL}
	}
	return nil
}
