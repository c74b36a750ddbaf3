// Package config loads, expands, defaults and validates toolstream's YAML
// configuration (docs/configuration.md). It is pure data and errors: it imports
// none of toolstream's other packages and does no network or disk I/O beyond
// reading the file it is given.
package config

import (
	"encoding/json"
	"log/slog"
	"time"
)

// Config is a whole toolstream configuration. The zero value is not useful;
// start from [Default] or use [Load].
type Config struct {
	// Listen is the address serve listens on. Default "127.0.0.1:8080".
	Listen string `yaml:"listen"`
	// MaxRequestBytes bounds a request body; larger bodies get 413.
	// Default 10MiB.
	MaxRequestBytes Size `yaml:"max_request_bytes"`
	// ShutdownGrace is how long open streams and running tools may finish
	// after SIGTERM or SIGINT before they are cut with a "shutting_down"
	// error. Default 30s; must be positive.
	ShutdownGrace time.Duration `yaml:"shutdown_grace"`
	// WriteIdleTimeout drops a streaming client that reads nothing for
	// this long: a deadline pushed forward before every write, so a long
	// turn is never cut, but a client that stopped reading does not hold
	// its turn (and the upstream round and tools under it). Default 2m.
	WriteIdleTimeout time.Duration `yaml:"write_idle_timeout"`
	// ReadIdleTimeout answers 408 to a request whose body stops arriving
	// for this long: a deadline pushed forward as the body's bytes come
	// in, so a slow upload is not cut, but a stalled one does not hold a
	// connection. Default 30s.
	ReadIdleTimeout time.Duration `yaml:"read_idle_timeout"`
	// ReadBodyTimeout bounds the whole read of one request body, however
	// its bytes trickle in; past it the request gets 408. Default 5m.
	ReadBodyTimeout time.Duration `yaml:"read_body_timeout"`
	// Auth holds client and admin keys.
	Auth Auth `yaml:"auth"`
	// Storage configures the embedded badger database.
	Storage Storage `yaml:"storage"`
	// Upstreams are the model servers requests are routed to, tried in
	// order: the first whose Models matches the request's model wins.
	Upstreams []Upstream `yaml:"upstreams"`
	// DefaultUpstream names the upstream for models no pattern matches and
	// for pass-through /v1/* paths. When empty and exactly one upstream is
	// configured, that one is the default; when empty with several,
	// unmatched models get 404.
	DefaultUpstream string `yaml:"default_upstream"`
	// Loop tunes the tool loop of a turn.
	Loop Loop `yaml:"loop"`
	// Tools are the server tools registered from the file.
	Tools []Tool `yaml:"tools"`
	// MCPServers are MCP servers whose tools become server tools.
	MCPServers []MCPServer `yaml:"mcp_servers"`
	// OpenAPITools are OpenAPI documents whose operations become server
	// tools.
	OpenAPITools []OpenAPITools `yaml:"openapi_tools"`
	// HostedTools binds a hosted tool kind a client may offer
	// ([HostedWebSearch], [HostedWebFetch]) to the server tool that runs
	// for it (docs/hosted-tools.md): kind → tool name.
	HostedTools map[string]string `yaml:"hosted_tools"`
	// Policies are rules over every server-tool call, looked at in
	// order (docs/policies.md). Empty: no rules.
	Policies []Policy `yaml:"policies"`
	// Log selects the log format and level.
	Log Log `yaml:"log"`
	// Otel configures OpenTelemetry tracing; off by default.
	Otel Otel `yaml:"otel"`

	// File is the path the configuration was read from; empty for a
	// configuration built in code. Not a YAML key.
	File string `yaml:"-"`
	// Warnings are likely mistakes that do not stop the configuration
	// from loading, such as a base_url without a version path, each with
	// its place in File: "toolstream check" prints them and serve can log
	// them. [Parse] and [Load] fill it in; nil for a configuration built
	// in code. Not a YAML key.
	Warnings []Problem `yaml:"-"`
	// Places says where File writes each key, for [Config.ProblemAt];
	// nil for a configuration built in code. Not a YAML key.
	Places *Places `yaml:"-"`
}

// Auth configures who may call the proxy (docs/http-api.md).
type Auth struct {
	// Keys are the client keys: plain entries (a key, or "sha256:<64 hex>")
	// and named entries with scopes and limits ([ClientKey]). Entries
	// whose key is empty (an unset ${VAR:-}) are dropped by [Parse]. No
	// keys means open, which is only allowed on a loopback listen address
	// unless AllowOpen is set.
	Keys []ClientKey `yaml:"keys"`
	// AdminKeys may call /admin/*. Plain keys or "sha256:<64 hex>".
	AdminKeys []Secret `yaml:"admin_keys"`
	// AllowOpen permits running without keys on a non-loopback address.
	AllowOpen bool `yaml:"allow_open"`
	// WebhookAllow lists host globs runtime-registered webhooks may target.
	WebhookAllow []string `yaml:"webhook_allow"`
	// MCPAllow lists host globs of the MCP servers a request may name
	// itself (a Responses mcp tool, a Messages mcp_servers entry). Empty
	// refuses every such server.
	MCPAllow []string `yaml:"mcp_allow"`
	// Metrics says who may read /metrics: "open" (default) or "admin".
	Metrics string `yaml:"metrics"`
}

// Storage configures the storage backend (docs/operations.md).
type Storage struct {
	// Backend names the storage backend: [BackendBadger] (default), an
	// embedded database for one process, or [BackendPostgres], one
	// database shared by any number of replicas.
	Backend string `yaml:"backend"`
	// Path is the badger directory. Default "./toolstream-data".
	Path string `yaml:"path"`
	// InMemory keeps everything in memory; nothing is written to disk
	// (badger only).
	InMemory bool `yaml:"in_memory"`
	// Postgres configures the PostgreSQL backend.
	Postgres Postgres `yaml:"postgres"`
	// AuditRetention is how long audit records live. Default 720h.
	AuditRetention time.Duration `yaml:"audit_retention"`
	// TurnRetention is how long history-stitching records and stored
	// Responses API answers live. Default 168h.
	TurnRetention time.Duration `yaml:"turn_retention"`
}

// Postgres is storage.postgres: the database replicas share.
type Postgres struct {
	// DSN is a libpq connection string or URL; it may hold a password.
	DSN Secret `yaml:"dsn"`
	// MaxConns bounds each replica's connection pool. Default 16.
	MaxConns int `yaml:"max_conns"`
}

// Storage backends (storage.backend).
const (
	BackendBadger   = "badger"
	BackendPostgres = "postgres"
)

// Tool modes (docs/tool-calls.md).
const (
	ToolModeNative = "native"
	ToolModeText   = "text"
	ToolModeAuto   = "auto"
)

// Text formats (docs/tool-calls.md).
const (
	TextFormatXML         = "xml"
	TextFormatToolRequest = "tool_request"
	TextFormatHermes      = "hermes"
	TextFormatJSON        = "json"
	// The model-family dialects of docs/tool-calls.md.
	TextFormatQwen3Coder = "qwen3_coder"
	TextFormatLlama3JSON = "llama3_json"
	TextFormatPythonic   = "pythonic"
	TextFormatMistral    = "mistral"
	TextFormatDeepSeek   = "deepseek"
	TextFormatKimiK2     = "kimi_k2"
	TextFormatGLM        = "glm"
	TextFormatHarmony    = "harmony"
	TextFormatDSML       = "dsml"
	TextFormatGemma4     = "gemma4"
	TextFormatKimiK3     = "kimi_k3"
	TextFormatMiniMaxM3  = "minimax_m3"
	// TextFormatAuto teaches hermes and detects every dialect, each only
	// for tools the turn can run.
	TextFormatAuto = "auto"
)

// TextFormats lists every text_format value, in the order error messages
// name them.
var TextFormats = []string{
	TextFormatXML, TextFormatToolRequest, TextFormatHermes, TextFormatJSON,
	TextFormatQwen3Coder, TextFormatLlama3JSON, TextFormatPythonic, TextFormatMistral,
	TextFormatDeepSeek, TextFormatKimiK2, TextFormatGLM,
	TextFormatHarmony, TextFormatDSML,
	TextFormatGemma4,
	TextFormatKimiK3, TextFormatMiniMaxM3,
	TextFormatAuto,
}

// Display modes (docs/stream.md).
const (
	DisplayEvents   = "events"
	DisplayMarkdown = "markdown"
	DisplayNone     = "none"
)

// Loop tunes the tool loop (docs/configuration.md, loop).
type Loop struct {
	// MaxRounds bounds upstream rounds per turn, the last included; the
	// last round is sent without tools. Default 8; minimum 1.
	MaxRounds int `yaml:"max_rounds"`
	// ParallelTools runs the calls of one round concurrently. Default false.
	ParallelTools bool `yaml:"parallel_tools"`
	// ToolTimeout is the per-call timeout for tools without their own.
	// Default 30s.
	ToolTimeout time.Duration `yaml:"tool_timeout"`
	// Display is events, markdown or none. Default events.
	Display string `yaml:"display"`
	// DisplayResultBytes bounds the result excerpt shown to the client.
	// Default 2KiB.
	DisplayResultBytes Size `yaml:"display_result_bytes"`
	// Keepalive is the interval of ": keepalive" comments while tools run
	// or an approval waits. Default 15s; zero disables.
	Keepalive time.Duration `yaml:"keepalive"`
	// MaxBlockBytes bounds one text tool block; larger is a parse error.
	// Default 1MiB.
	MaxBlockBytes Size `yaml:"max_block_bytes"`
	// ParseRetries is how many rounds may be spent telling the model its
	// call was malformed. Default 2; zero means none.
	ParseRetries int `yaml:"parse_retries"`
	// ResultRole is the role of the text-mode results message: user or
	// system. Default user.
	ResultRole string `yaml:"result_role"`
	// ApprovalTimeout turns an undecided approval into DENIED. Default 5m.
	ApprovalTimeout time.Duration `yaml:"approval_timeout"`
	// ToolSearchThreshold is the most server tools a turn shows the model
	// in full: past it the model finds them with find_tools, since a small
	// model offered every schema reads a long prompt and picks worse.
	// Default 32; zero turns the search off.
	ToolSearchThreshold int `yaml:"tool_search_threshold"`
}

// Tool is one server tool registered in the file (docs/webhooks.md).
type Tool struct {
	// Name is what the model calls; [a-zA-Z0-9_-]{1,64}, unique.
	Name string `yaml:"name"`
	// Description tells the model what the tool does.
	Description string `yaml:"description"`
	// Parameters is the JSON Schema of the arguments, converted from YAML
	// to JSON. Default {"type":"object","properties":{}}.
	Parameters json.RawMessage `yaml:"parameters"`
	// Webhook is the tool's executor. Required (until other executors exist).
	Webhook *Webhook `yaml:"webhook"`
	// Idempotent allows retries on connect errors and 502/503/504.
	Idempotent bool `yaml:"idempotent"`
	// Approval is never (default) or always.
	Approval string `yaml:"approval"`
	// MaxResultBytes cuts longer results, with a note. Default 64KiB.
	MaxResultBytes Size `yaml:"max_result_bytes"`
	// Redact lists argument fields masked in the audit log.
	Redact []string `yaml:"redact"`
}

// Webhook is an HTTP executor (docs/webhooks.md).
type Webhook struct {
	// URL receives POST requests. Required, http or https.
	URL string `yaml:"url"`
	// Headers are added to every call.
	Headers map[string]Secret `yaml:"headers"`
	// Secret, when set, signs requests the Standard Webhooks way.
	Secret Secret `yaml:"secret"`
	// Timeout bounds one call including retries. Zero (the default) means
	// loop.tool_timeout; read it through [Tool.Timeout].
	Timeout time.Duration `yaml:"timeout"`
}

// MCPServer is an MCP server whose tools become server tools (docs/mcp.md):
// a process spoken to over stdio (Command), or a streamable HTTP endpoint
// (URL); exactly one of the two.
type MCPServer struct {
	// Name identifies the server in logs, metrics, /readyz and the tools'
	// source "mcp:<name>". Required, unique, [a-zA-Z0-9_-]{1,64}.
	Name string `yaml:"name"`
	// Command starts the server (stdio transport), with Args and Env
	// added to toolstream's own environment.
	Command string            `yaml:"command"`
	Args    []string          `yaml:"args"`
	Env     map[string]Secret `yaml:"env"`
	// URL is the server's streamable HTTP endpoint, sent Headers.
	URL     string            `yaml:"url"`
	Headers map[string]Secret `yaml:"headers"`
	// Tools are globs (path.Match) over the server's own tool names: only
	// matching tools are registered. Default ["*"].
	Tools []string `yaml:"tools"`
	// Exclude are globs of tool names left out, after Tools.
	Exclude []string `yaml:"exclude"`
	// Prefix is prepended to each tool's name, to keep servers apart.
	Prefix string `yaml:"prefix"`
	// Timeout bounds one call. Zero (the default) means loop.tool_timeout.
	Timeout time.Duration `yaml:"timeout"`
	// Approval is the default of the server's tools: never, always or
	// admin. Default never.
	Approval string `yaml:"approval"`
	// Idempotent is the default of the server's tools.
	Idempotent bool `yaml:"idempotent"`
	// Overrides set approval, idempotent, timeout or redact per tool,
	// keyed by the tool's name after Prefix.
	Overrides map[string]MCPOverride `yaml:"overrides"`
}

// MCPOverride changes one MCP tool's settings; a key left out keeps the
// server's.
type MCPOverride struct {
	Approval   string        `yaml:"approval"`
	Idempotent *bool         `yaml:"idempotent"`
	Timeout    time.Duration `yaml:"timeout"`
	// Redact lists argument fields masked in the audit log, as for
	// webhook tools.
	Redact []string `yaml:"redact"`
}

// OpenAPITools is an OpenAPI 3.0/3.1 document whose operations become
// server tools (docs/openapi-tools.md): each a call of the HTTP request
// the operation describes.
type OpenAPITools struct {
	// Name identifies the source in logs and the tools' source
	// "openapi:<name>". Required, unique, [a-zA-Z0-9_-]{1,64}.
	Name string `yaml:"name"`
	// Spec is the document: a file (relative to the config file's
	// folder) or an http(s) URL, read at start-up and on reload.
	Spec string `yaml:"spec"`
	// BaseURL is where calls go. Default: the document's first server.
	BaseURL string `yaml:"base_url"`
	// Operations are globs (path.Match) over operationIds: only matching
	// operations become tools. Default ["*"].
	Operations []string `yaml:"operations"`
	// Headers are sent with every call (and with the request reading a
	// Spec URL).
	Headers map[string]Secret `yaml:"headers"`
	// Prefix is prepended to each operationId to name its tool. Unset
	// means Name + "_"; "" means none.
	Prefix *string `yaml:"prefix"`
	// Approval is the default of the source's tools: never, always or
	// admin. Default never.
	Approval string `yaml:"approval"`
	// Timeout bounds one call. Zero (the default) means loop.tool_timeout.
	Timeout time.Duration `yaml:"timeout"`
	// Overrides set approval, idempotent, timeout or redact per tool,
	// keyed by the tool's name (after the prefix). GET and HEAD
	// operations are idempotent unless an override says otherwise.
	Overrides map[string]MCPOverride `yaml:"overrides"`
}

// ToolPrefix is what the source's tool names start with.
func (o *OpenAPITools) ToolPrefix() string {
	if o.Prefix == nil {
		return o.Name + "_"
	}
	return *o.Prefix
}

// Log configures logging (docs/operations.md).
type Log struct {
	// Format is text (default) or json.
	Format string `yaml:"format"`
	// Level is debug, info (default), warn or error.
	Level string `yaml:"level"`
}

// Secret is a string that must never be printed: keys, tokens, webhook
// secrets. Use [Secret.Value] to get at it. fmt (%v, %s, %q, %+v, %#v)
// and slog print "[redacted]" instead; encoding/json still writes the
// value, because runtime-registered tools must be stored with their
// secrets, so never log a struct holding one through a JSON encoder.
type Secret string

// Value returns the secret itself.
func (s Secret) Value() string { return string(s) }

// String redacts the secret so that fmt and logs never show it.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "[redacted]"
}

// LogValue redacts the secret in slog output.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// GoString redacts the secret for %#v, which would otherwise print a
// whole Config with its keys in Go syntax.
func (s Secret) GoString() string { return `config.Secret("` + s.String() + `")` }

// Default returns the configuration used for every key the file leaves
// out. It is the one place defaults live.
func Default() Config {
	return Config{
		Listen:           "127.0.0.1:8080",
		MaxRequestBytes:  10 * MiB,
		ShutdownGrace:    30 * time.Second,
		WriteIdleTimeout: 2 * time.Minute,
		ReadIdleTimeout:  30 * time.Second,
		ReadBodyTimeout:  5 * time.Minute,
		Auth:             Auth{Metrics: "open"},
		Storage: Storage{
			Backend:        BackendBadger,
			Path:           "./toolstream-data",
			Postgres:       Postgres{MaxConns: 16},
			AuditRetention: 720 * time.Hour,
			TurnRetention:  168 * time.Hour,
		},
		Loop: Loop{
			MaxRounds:           8,
			ToolTimeout:         30 * time.Second,
			Display:             DisplayEvents,
			DisplayResultBytes:  2 * KiB,
			Keepalive:           15 * time.Second,
			MaxBlockBytes:       1 * MiB,
			ParseRetries:        2,
			ResultRole:          "user",
			ApprovalTimeout:     5 * time.Minute,
			ToolSearchThreshold: 32,
		},
		Log:  Log{Format: "text", Level: "info"},
		Otel: defaultOtel(),
	}
}

// DefaultToolEntry returns a tool with every optional key at its default;
// entries of tools are decoded on top of it.
func DefaultToolEntry() Tool {
	return Tool{
		Approval:       "never",
		MaxResultBytes: 64 * KiB,
		Parameters:     json.RawMessage(`{"type":"object","properties":{}}`),
	}
}

// DefaultMCPServerEntry returns an MCP server with every optional key at
// its default; entries of mcp_servers are decoded on top of it.
func DefaultMCPServerEntry() MCPServer {
	return MCPServer{Tools: []string{"*"}, Approval: "never"}
}

// DefaultOpenAPIEntry returns an openapi_tools entry with every optional
// key at its default; entries of openapi_tools are decoded on top of it.
func DefaultOpenAPIEntry() OpenAPITools {
	return OpenAPITools{Operations: []string{"*"}, Approval: "never"}
}

// Upstream returns the upstream called name.
func (c *Config) Upstream(name string) (*Upstream, bool) {
	for i := range c.Upstreams {
		if c.Upstreams[i].Name == name {
			return &c.Upstreams[i], true
		}
	}
	return nil, false
}

// DefaultUpstreamName resolves DefaultUpstream: the configured name, the
// only upstream when there is exactly one, else "".
func (c *Config) DefaultUpstreamName() string {
	if c.DefaultUpstream != "" {
		return c.DefaultUpstream
	}
	if len(c.Upstreams) == 1 {
		return c.Upstreams[0].Name
	}
	return ""
}

// Timeout is how long one call of t may take, retries included: its
// webhook's own timeout, or loop.tool_timeout when that is zero or unset.
func (t *Tool) Timeout(loop Loop) time.Duration {
	if t.Webhook != nil && t.Webhook.Timeout > 0 {
		return t.Webhook.Timeout
	}
	return loop.ToolTimeout
}
