package config

import "time"

// Upstream is one OpenAI-compatible model server.
type Upstream struct {
	// Name identifies the upstream in logs, metrics and DefaultUpstream.
	// Required, unique.
	Name string `yaml:"name"`
	// BaseURL is the API root including its version path, e.g.
	// "http://127.0.0.1:11434/v1". Required, http or https.
	BaseURL string `yaml:"base_url"`
	// APIKey is sent as "Authorization: Bearer" to this upstream; none when
	// empty. The client's own key is never forwarded.
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
	// Headers are added to every request to this upstream.
	Headers map[string]string `yaml:"headers"`
}

// DefaultUpstreamEntry returns an upstream with every optional key at its
// default; entries of upstreams are decoded on top of it.
func DefaultUpstreamEntry() Upstream {
	return Upstream{
		ToolMode:       ToolModeAuto,
		TextFormat:     TextFormatHermes,
		Timeout:        10 * time.Minute,
		IdleTimeout:    120 * time.Second,
		ConnectTimeout: 10 * time.Second,
		HeaderTimeout:  5 * time.Minute,
	}
}
