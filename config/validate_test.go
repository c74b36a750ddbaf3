package config_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
)

// Minimal valid entries the cases below build on.
const (
	up   = "upstreams:\n  - name: u\n    base_url: http://h/v1\n"
	tool = "tools:\n  - name: t\n    webhook: {url: \"http://h/\"}\n"
)

// TestValidate has one case per rule of docs/configuration.md: each breaks it
// once and pins the whole message, its path and its line:col.
func TestValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		src  string
		vars map[string]string
		want []string
	}{
		// Top level.
		{"listen without port", "listen: localhost\n", nil, []string{
			`t.yaml:1:9: listen: invalid address "localhost" (want host:port, e.g. 127.0.0.1:8080, or :8080 for all interfaces)`}},
		{"listen port not a number", "listen: 127.0.0.1:http\n", nil, []string{
			`t.yaml:1:9: listen: port "http" of "127.0.0.1:http" is not a number from 0 to 65535`}},
		{"listen port too large", "listen: 127.0.0.1:70000\n", nil, []string{
			`t.yaml:1:9: listen: port "70000" of "127.0.0.1:70000" is not a number from 0 to 65535`}},
		{"max_request_bytes zero", "max_request_bytes: 0\n", nil, []string{
			`t.yaml:1:20: max_request_bytes: must be positive, got 0B`}},
		{"shutdown_grace zero", "shutdown_grace: 0s\n", nil, []string{
			`t.yaml:1:17: shutdown_grace: must be positive, got 0s`}},
		{"shutdown_grace negative", "shutdown_grace: -5s\n", nil, []string{
			`t.yaml:1:17: shutdown_grace: must be positive, got -5s`}},

		// auth.
		{"metrics", "auth:\n  metrics: everyone\n", nil, []string{
			`t.yaml:2:12: auth.metrics: unknown value "everyone" (want open or admin)`}},
		{"metrics admin without admin keys", "auth:\n  metrics: admin\n  admin_keys: [\"${A:-}\"]\n", nil, []string{
			`t.yaml:2:12: auth.metrics: admin, but there are no auth.admin_keys: nobody could read /metrics (add an admin key, or set metrics: open)`}},
		{"sha256 key too short", "auth:\n  keys: [\"sha256:abcd\"]\n", nil, []string{
			`t.yaml:2:10: auth.keys[0]: sha256 key must be "sha256:" and 64 hex digits (the SHA-256 of the key), got 4 characters after the prefix`}},
		{"sha256 key not hex", "auth:\n  admin_keys:\n    - ok\n    - sha256:" + strings.Repeat("zz", 32) + "\n", nil, []string{
			`t.yaml:4:7: auth.admin_keys[1]: sha256 key must be "sha256:" and 64 hex digits (the SHA-256 of the key), got 64 characters after the prefix`}},
		{"key with trailing newline", "auth:\n  keys: [\"${K}\"]\n", map[string]string{"K": "secret\n"}, []string{
			`t.yaml:2:10: auth.keys[0]: key contains whitespace or control characters (check the variable's value for a trailing newline)`}},
		{"open on a public address", "listen: 0.0.0.0:8080\n", nil, []string{
			`t.yaml:1:1: auth.keys: no client keys while listen "0.0.0.0:8080" is not loopback: anyone who can reach it may use the upstreams (set auth.keys, or auth.allow_open: true to allow it)`}},
		{"open because the key variable is empty", "listen: :8080\nauth:\n  keys: [\"${K:-}\"]\n", nil, []string{
			`t.yaml:3:3: auth.keys: no client keys while listen ":8080" is not loopback: anyone who can reach it may use the upstreams (set auth.keys, or auth.allow_open: true to allow it)`}},
		{"webhook_allow bad glob", "auth:\n  webhook_allow: [\"*.example.com\", \"[a-\"]\n", nil, []string{
			`t.yaml:2:36: auth.webhook_allow[1]: bad pattern "[a-" (path.Match syntax: * any run, ? one character, [a-z] a class, \ escapes)`}},
		{"webhook_allow URL", "auth:\n  webhook_allow: [\"https://hooks.example.com/x\"]\n", nil, []string{
			`t.yaml:2:19: auth.webhook_allow[0]: "https://hooks.example.com/x" is not a host glob (want a host pattern like *.example.com, without scheme or path)`}},
		{"webhook_allow empty", "auth:\n  webhook_allow: [\"\"]\n", nil, []string{
			`t.yaml:2:19: auth.webhook_allow[0]: empty host glob (want e.g. hooks.example.com or *.internal)`}},
		{"mcp_allow URL", "auth:\n  mcp_allow: [\"mcp.example.com\", \"https://mcp.example.com/mcp\"]\n", nil, []string{
			`t.yaml:2:34: auth.mcp_allow[1]: "https://mcp.example.com/mcp" is not a host glob (want a host pattern like *.example.com, without scheme or path)`}},
		{"mcp_allow port", "auth:\n  mcp_allow: [\"127.0.0.1:8931\"]\n", nil, []string{
			`t.yaml:2:15: auth.mcp_allow[0]: "127.0.0.1:8931" has a port: the list names hosts, any port of an allowed host may be used (write "127.0.0.1")`}},
		{"mcp_allow bad glob", "auth:\n  mcp_allow: [\"[a-\"]\n", nil, []string{
			`t.yaml:2:15: auth.mcp_allow[0]: bad pattern "[a-" (path.Match syntax: * any run, ? one character, [a-z] a class, \ escapes)`}},

		// storage.
		{"storage backend unknown", "storage:\n  backend: sqlite\n", nil, []string{
			`t.yaml:2:12: storage.backend: unknown value "sqlite" (want badger or postgres)`}},
		{"postgres without dsn", "storage:\n  backend: postgres\n", nil, []string{
			`t.yaml:1:1: storage.postgres.dsn: required with backend postgres (e.g. postgres://toolstream:PASSWORD@db:5432/toolstream)`}},
		{"postgres bad dsn", "storage:\n  backend: postgres\n  postgres: {dsn: \"postgres://ts:hunter2@db:99999/ts\"}\n", nil, []string{
			`t.yaml:3:19: storage.postgres.dsn: not a PostgreSQL connection string: invalid port`}},
		{"postgres bad sslmode", "storage:\n  backend: postgres\n  postgres: {dsn: \"postgres://ts:hunter2@db/ts?sslmode=maybe\"}\n", nil, []string{
			`t.yaml:3:19: storage.postgres.dsn: not a PostgreSQL connection string: failed to configure TLS (sslmode is invalid)`}},
		{"postgres max_conns", "storage:\n  backend: postgres\n  postgres: {dsn: \"postgres://db/ts\", max_conns: 0}\n", nil, []string{
			`t.yaml:3:50: storage.postgres.max_conns: 0 is out of range (want 1 to 1000)`}},
		{"postgres dsn beside badger", "storage:\n  postgres: {dsn: \"postgres://db/ts\"}\n", nil, []string{
			`t.yaml:2:19: storage.postgres.dsn: is set, but storage.backend is badger, which does not use it; set storage.backend: postgres to share the database between replicas, or leave the dsn empty`}},
		{"postgres in memory", "storage:\n  backend: postgres\n  in_memory: true\n  postgres: {dsn: \"postgres://db/ts\"}\n", nil, []string{
			`t.yaml:3:14: storage.in_memory: applies to badger only; with backend postgres everything is in the database`}},
		{"storage path empty", "storage:\n  path: \"\"\n", nil, []string{
			`t.yaml:2:9: storage.path: required unless storage.in_memory is true (e.g. ./toolstream-data)`}},
		{"retentions", "storage:\n  audit_retention: 0s\n  turn_retention: -1h\n", nil, []string{
			`t.yaml:2:20: storage.audit_retention: must be positive, got 0s`,
			`t.yaml:3:19: storage.turn_retention: must be positive, got -1h0m0s`}},

		// upstreams.
		{"upstream name missing", "upstreams:\n  - base_url: http://h/v1\n", nil, []string{
			`t.yaml:2:5: upstreams[0].name: required (a short name like local or openai)`}},
		{"upstream name charset", "upstreams:\n  - name: my upstream\n    base_url: http://h/v1\n", nil, []string{
			`t.yaml:2:11: upstreams[0].name: "my upstream" may only contain letters, digits, '_', '.' and '-'`}},
		{"upstream name duplicate", up + "  - name: u\n    base_url: http://h2/v1\n", nil, []string{
			`t.yaml:4:11: upstreams[1].name: duplicate name "u" (first used by upstreams[0] at line 2)`}},
		{"base_url missing", "upstreams:\n  - name: u\n", nil, []string{
			`t.yaml:2:5: upstreams[0].base_url: required (an http or https URL, or base_urls: a list of them for a pool of servers)`}},
		{"base_url relative", "upstreams:\n  - name: u\n    base_url: /v1\n", nil, []string{
			`t.yaml:3:15: upstreams[0].base_url: "/v1" must start with http:// or https://`}},
		{"base_url scheme", "upstreams:\n  - name: u\n    base_url: ws://h/v1\n", nil, []string{
			`t.yaml:3:15: upstreams[0].base_url: "ws://h/v1" must start with http:// or https://`}},
		{"base_url password not shown", "upstreams:\n  - name: u\n    base_url: ftp://me:hunter2@h/v1\n", nil, []string{
			`t.yaml:3:15: upstreams[0].base_url: "ftp://me:xxxxx@h/v1" must start with http:// or https://`}},
		{"base_url no host", "upstreams:\n  - name: u\n    base_url: \"http:///v1\"\n", nil, []string{
			`t.yaml:3:15: upstreams[0].base_url: "http:///v1" has no host`}},
		{"base_url unparsable", "upstreams:\n  - name: u\n    base_url: \"http://h/%zz\"\n", nil, []string{
			`t.yaml:3:15: upstreams[0].base_url: invalid URL (want e.g. http://127.0.0.1:9000/path): invalid URL escape "%zz"`}},
		{"base_url with endpoint", "upstreams:\n  - name: u\n    base_url: http://h/v1/chat/completions\n", nil, []string{
			`t.yaml:3:15: upstreams[0].base_url: is the API root, e.g. http://127.0.0.1:11434/v1; toolstream appends /chat/completions itself`}},
		{"models bad pattern", up + "    models: [\"qwen*\", \"llama[3\"]\n", nil, []string{
			`t.yaml:4:23: upstreams[0].models[1]: bad pattern "llama[3" (path.Match syntax: * any run, ? one character, [a-z] a class, \ escapes)`}},
		{"models empty pattern", up + "    models: [\"\"]\n", nil, []string{
			`t.yaml:4:14: upstreams[0].models[0]: empty pattern (want e.g. gpt-* or llama3.1:8b)`}},
		{"alias without name", up + "    models: [{model: qwen2.5:7b}]\n", nil, []string{
			`t.yaml:4:14: upstreams[0].models[0].name: required: the model name clients send, e.g. fast`}},
		{"alias name a pattern", up + "    models: [{name: \"fast*\", model: qwen2.5:7b}]\n", nil, []string{
			`t.yaml:4:21: upstreams[0].models[0].name: an alias names one model; "fast*" is a pattern`}},
		{"alias model a pattern", up + "    models: [{name: fast, model: \"qwen*\"}]\n", nil, []string{
			`t.yaml:4:34: upstreams[0].models[0].model: must be the upstream's model id, not a pattern (got "qwen*")`}},
		{"alias defined twice on one upstream", up + "    models: [{name: fast, model: a}, {name: fast, model: b}]\n", nil, []string{
			`t.yaml:4:45: upstreams[0].models[1].name: alias "fast" is already defined on this upstream at upstreams[0].models[0] at line 4`}},
		{"alias a list", up + "    models: [[fast]]\n", nil, []string{
			`t.yaml:4:14: upstreams[0].models[0]: want a model pattern like gpt-* or an alias like {name: fast, model: qwen2.5:7b}, got a list`}},
		{"alias unknown key", up + "    models: [{name: fast, model_name: a}]\n", nil, []string{
			`t.yaml:4:27: upstreams[0].models[0].model_name: unknown key (LiteLLM's model_name is models (a pattern, or an alias {name, model}) in toolstream; see docs/configuration.md#coming-from-litellm)`}},
		{"tool_mode", up + "    tool_mode: nativ\n", nil, []string{
			`t.yaml:4:16: upstreams[0].tool_mode: unknown value "nativ" (want native, text or auto)`}},
		{"text_format", up + "    text_format: qwen\n", nil, []string{
			`t.yaml:4:18: upstreams[0].text_format: unknown value "qwen" (want xml, tool_request, hermes, json, qwen3_coder, llama3_json, pythonic, mistral, deepseek, kimi_k2, glm, harmony, dsml, gemma4, kimi_k3, minimax_m3 or auto)`}},
		{"upstream timeouts", up + "    timeout: 0s\n    connect_timeout: -1s\n    header_timeout: 0s\n    idle_timeout: 0s\n", nil, []string{
			`t.yaml:4:14: upstreams[0].timeout: must be positive, got 0s`,
			`t.yaml:5:22: upstreams[0].connect_timeout: must be positive, got -1s`,
			`t.yaml:6:21: upstreams[0].header_timeout: must be positive, got 0s`,
			`t.yaml:7:19: upstreams[0].idle_timeout: must be positive, got 0s`}},
		{"upstream headers", up + "    headers:\n      \"Bad Name\": x\n      X-A: \"${V}\"\n      x-a: y\n", map[string]string{"V": "a\nb"}, []string{
			`t.yaml:5:19: upstreams[0].headers.Bad Name: "Bad Name" is not a valid header name`,
			`t.yaml:6:12: upstreams[0].headers.X-A: value contains a line break or NUL (check the variable's value for a trailing newline)`,
			`t.yaml:7:12: upstreams[0].headers.x-a: same header as X-A (header names are case-insensitive)`}},
		{"authorization header and api_key", up + "    api_key: k\n    headers: {Authorization: \"Bearer k2\"}\n", nil, []string{
			`t.yaml:5:30: upstreams[0].headers.Authorization: conflicts with api_key, which is sent as Authorization: Bearer (set one of them)`}},
		{"default_upstream unknown", up + "default_upstream: other\n", nil, []string{
			`t.yaml:4:19: default_upstream: no upstream named "other" (have u)`}},
		{"default_upstream without upstreams", "default_upstream: other\n", nil, []string{
			`t.yaml:1:19: default_upstream: no upstream named "other" (none are configured)`}},

		// loop.
		{"max_rounds", "loop:\n  max_rounds: 0\n", nil, []string{
			`t.yaml:2:15: loop.max_rounds: must be at least 1, got 0`}},
		{"parse_retries", "loop:\n  parse_retries: -1\n", nil, []string{
			`t.yaml:2:18: loop.parse_retries: must not be negative, got -1 (0 means no retries)`}},
		{"tool_timeout", "loop:\n  tool_timeout: 0s\n", nil, []string{
			`t.yaml:2:17: loop.tool_timeout: must be positive, got 0s`}},
		{"display", "loop:\n  display: cards\n", nil, []string{
			`t.yaml:2:12: loop.display: unknown value "cards" (want events, markdown or none)`}},
		{"display_result_bytes", "loop:\n  display_result_bytes: 0B\n", nil, []string{
			`t.yaml:2:25: loop.display_result_bytes: must be positive, got 0B`}},
		{"keepalive", "loop:\n  keepalive: -5s\n", nil, []string{
			`t.yaml:2:14: loop.keepalive: must not be negative, got -5s (0 disables keepalives)`}},
		{"max_block_bytes", "loop:\n  max_block_bytes: 0\n", nil, []string{
			`t.yaml:2:20: loop.max_block_bytes: must be positive, got 0B`}},
		{"result_role", "loop:\n  result_role: tool\n", nil, []string{
			`t.yaml:2:16: loop.result_role: unknown value "tool" (want user or system)`}},
		{"approval_timeout", "loop:\n  approval_timeout: 0s\n", nil, []string{
			`t.yaml:2:21: loop.approval_timeout: must be positive, got 0s`}},

		// tools.
		{"tool name missing", "tools:\n  - webhook: {url: \"http://h/\"}\n", nil, []string{
			`t.yaml:2:5: tools[0].name: required (what the model calls, e.g. get_weather)`}},
		{"tool name charset", "tools:\n  - name: get.weather\n    webhook: {url: \"http://h/\"}\n", nil, []string{
			`t.yaml:2:11: tools[0].name: "get.weather" must be 1 to 64 letters, digits, '_' or '-' (OpenAI's rule for function names)`}},
		{"tool name too long", "tools:\n  - name: " + strings.Repeat("a", 65) + "\n    webhook: {url: \"http://h/\"}\n", nil, []string{
			`t.yaml:2:11: tools[0].name: "` + strings.Repeat("a", 65) + `" must be 1 to 64 letters, digits, '_' or '-' (OpenAI's rule for function names)`}},
		{"tool name duplicate", tool + tool[len("tools:\n"):], nil, []string{
			`t.yaml:4:11: tools[1].name: duplicate name "t" (first used by tools[0] at line 2)`}},
		{"webhook missing", "tools:\n  - name: t\n", nil, []string{
			`t.yaml:2:5: tools[0].webhook: required (a webhook with at least url: http://…)`}},
		{"webhook null", "tools:\n  - name: t\n    webhook:\n", nil, []string{
			`t.yaml:3:5: tools[0].webhook: required (a webhook with at least url: http://…)`}},
		{"webhook url missing", "tools:\n  - name: t\n    webhook: {timeout: 5s}\n", nil, []string{
			`t.yaml:3:5: tools[0].webhook.url: required (an http or https URL)`}},
		{"webhook url scheme", "tools:\n  - name: t\n    webhook:\n      url: file:///bin/sh\n", nil, []string{
			`t.yaml:4:12: tools[0].webhook.url: "file:///bin/sh" must start with http:// or https://`}},
		{"webhook timeout negative", "tools:\n  - name: t\n    webhook:\n      url: http://h/\n      timeout: -1s\n", nil, []string{
			`t.yaml:5:16: tools[0].webhook.timeout: must be positive, got -1s (leave it out to use loop.tool_timeout)`}},
		{"webhook header", "tools:\n  - name: t\n    webhook:\n      url: http://h/\n      headers: {\"X:Y\": \"${S}\"}\n", map[string]string{"S": "s"}, []string{
			`t.yaml:5:24: tools[0].webhook.headers.X:Y: "X:Y" is not a valid header name`}},
		{"approval", tool + "    approval: sometimes\n", nil, []string{
			`t.yaml:4:15: tools[0].approval: unknown value "sometimes" (want never, always or admin)`}},
		{"max_result_bytes", tool + "    max_result_bytes: 0KiB\n", nil, []string{
			`t.yaml:4:23: tools[0].max_result_bytes: must be positive, got 0B`}},
		{"redact empty", tool + "    redact: [password, \"\"]\n", nil, []string{
			`t.yaml:4:24: tools[0].redact[1]: empty field name (want an argument name like password)`}},
		{"parameters not a mapping", tool + "    parameters: [city]\n", nil, []string{
			`t.yaml:4:5: tools[0].parameters: want a mapping (a JSON Schema with type: object), got a list`}},
		{"parameters type", tool + "    parameters: {type: array, items: {type: string}}\n", nil, []string{
			`t.yaml:4:5: tools[0].parameters: type must be object (tool arguments are a JSON object), got "array"`}},
		{"parameters invalid schema", tool + "    parameters:\n      type: object\n      properties:\n        days: {type: integer, minimum: one}\n", nil, []string{
			`t.yaml:4:5: tools[0].parameters: invalid JSON Schema: at '/properties/days/minimum': got string, want number`}},
		{"parameters bad regexp", tool + "    parameters: {type: object, properties: {a: {type: string, pattern: \"(\"}}}\n", nil, []string{
			`t.yaml:4:5: tools[0].parameters: invalid JSON Schema: at '/properties/a/pattern': '(' is not valid regex: error parsing regexp: missing closing ): ` + "`(`"}},
		{"parameters external ref", tool + "    parameters: {type: object, properties: {a: {$ref: \"https://example.com/s.json\"}}}\n", nil, []string{
			`t.yaml:4:5: tools[0].parameters: invalid JSON Schema: $ref "https://example.com/s.json": only references inside this schema (#/$defs/...) are allowed`}},
		{"parameters infinity", tool + "    parameters: {type: object, maximum: .inf}\n", nil, []string{
			`t.yaml:4:41: tools[0].parameters.maximum: .inf cannot be written in JSON`}},

		// log.
		{"log format and level", "log:\n  format: logfmt\n  level: trace\n", nil, []string{
			`t.yaml:2:11: log.format: unknown value "logfmt" (want text or json)`,
			`t.yaml:3:10: log.level: unknown value "trace" (want debug, info, warn or error)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, problems(t, tc.src, tc.vars)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateAccepts pins the edges of the rules from the valid side.
func TestValidateAccepts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, src string }{
		{"in_memory needs no path", "storage: {path: \"\", in_memory: true}\n"},
		{"badger backend", "storage: {backend: badger}\n"},
		{"postgres needs no path", "storage: {backend: postgres, path: \"\", postgres: {dsn: \"host=db user=ts dbname=ts\", max_conns: 4}}\n"},
		{"empty postgres block beside badger", "storage: {postgres: {dsn: \"\"}}\n"},
		{"zero keepalive and retries", "loop: {keepalive: 0, parse_retries: 0, max_rounds: 1}\n"},
		{"webhook timeout zero", "tools:\n  - name: t\n    webhook: {url: \"http://h/\", timeout: 0s}\n"},
		{"open public with allow_open", "listen: 0.0.0.0:8080\nauth: {allow_open: true}\n"},
		{"public with a key", "listen: \"[::]:8080\"\nauth: {keys: [k]}\n"},
		{"loopback names", "listen: localhost:1\n"},
		{"ipv6 loopback", "listen: \"[::1]:8080\"\n"},
		{"sha256 key", "auth: {keys: [\"sha256:" + strings.Repeat("aB", 32) + "\"]}\n"},
		{"no description", "tools:\n  - name: t-1_2\n    webhook: {url: \"https://h:8443/x?y=1\"}\n"},
		{"max length tool name", "tools:\n  - name: " + strings.Repeat("a", 64) + "\n    webhook: {url: \"http://h/\"}\n"},
		{"upstream name charset", "upstreams:\n  - {name: a.B_c-1, base_url: \"http://h\", models: [\"llama3.1:8b\", \"o[0-9]*\", \"*\"]}\n"},
		{"default_upstream names one", up + "default_upstream: u\n"},
		{"an alias on two upstreams", up + "    models: [{name: fast, model: a}]\n    fallbacks: [v]\n  - name: v\n    base_url: http://h/v1\n    models: [{name: fast, model: b}]\n"},
		{"parameters with local ref", "tools:\n  - name: t\n    webhook: {url: \"http://h/\"}\n    parameters: {type: object, $defs: {c: {type: string}}, properties: {a: {$ref: \"#/$defs/c\"}}}\n"},
		{"litellm text in a value that is not one", "tools:\n  - name: t\n    description: \"reads os.environ/HOME\"\n    webhook: {url: \"http://h/\"}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mustParse(t, tc.src, nil)
		})
	}
}

// TestValidateInCode checks Validate on a Config built without a file:
// problems carry their paths and no positions, and Default is valid.
func TestValidateInCode(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Default().Validate() = %v", err)
	}
	cfg.Listen = "0.0.0.0"
	cfg.Loop.Display = "cards"
	u := config.DefaultUpstreamEntry()
	u.Name = "a"
	cfg.Upstreams = []config.Upstream{u, u}
	cfg.Tools = []config.Tool{{Name: "x", Webhook: &config.Webhook{URL: "http://h/", Timeout: -time.Second}}}
	err := cfg.Validate()
	var cerr *config.Error
	if !errors.As(err, &cerr) {
		t.Fatalf("Validate = %v, want *config.Error", err)
	}
	want := []string{
		`listen: invalid address "0.0.0.0" (want host:port, e.g. 127.0.0.1:8080, or :8080 for all interfaces)`,
		`upstreams[0].base_url: required (an http or https URL, or base_urls: a list of them for a pool of servers)`,
		`upstreams[1].name: duplicate name "a" (first used by upstreams[0])`,
		`upstreams[1].base_url: required (an http or https URL, or base_urls: a list of them for a pool of servers)`,
		`loop.display: unknown value "cards" (want events, markdown or none)`,
		`tools[0].webhook.timeout: must be positive, got -1s (leave it out to use loop.tool_timeout)`,
		`tools[0].approval: unknown value "" (want never, always or admin)`,
		`tools[0].max_result_bytes: must be positive, got 0B`,
	}
	if diff := cmp.Diff(want, strings.Split(err.Error(), "\n")); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if cerr.Problems[0].Line != 0 || cerr.Problems[0].File != "" {
		t.Errorf("problem of an in-code config has position %+v", cerr.Problems[0])
	}
}
