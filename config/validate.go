package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Validate checks c against every rule of docs/configuration.md and returns an
// [*Error] listing all problems, or nil. [Load] and [Parse] call it and add
// file positions; call it yourself on a Config built in code or changed after
// loading (e.g. a listen address from a flag), where problems carry only their
// path.
func (c *Config) Validate() error {
	return newError(c.check(nil))
}

// validator collects problems. at, when set, gives the line of a path,
// for messages that point at a second place ("first at line 12").
type validator struct {
	file     string
	at       func(path string) position
	problems []Problem
}

func (v *validator) add(path, format string, args ...any) {
	v.problems = append(v.problems, Problem{File: v.file, Path: path, Message: fmt.Sprintf(format, args...)})
}

// where describes a second place for a message: "upstreams[0] at line 12".
func (v *validator) where(path string) string {
	if v.at != nil {
		if p := v.at(path); p.line > 0 {
			return fmt.Sprintf("%s at line %d", path, p.line)
		}
	}
	return path
}

// check runs every rule; problems have paths but no positions.
func (c *Config) check(at func(string) position) []Problem {
	v := &validator{file: c.File, at: at}
	v.listen("listen", c.Listen)
	v.positiveSize("max_request_bytes", c.MaxRequestBytes)
	v.positiveDuration("shutdown_grace", c.ShutdownGrace)
	v.positiveDuration("write_idle_timeout", c.WriteIdleTimeout)
	v.positiveDuration("read_idle_timeout", c.ReadIdleTimeout)
	v.positiveDuration("read_body_timeout", c.ReadBodyTimeout)
	v.auth(c)
	v.storage(c.Storage)
	v.upstreams(c)
	v.loop(c.Loop)
	v.tools(c.Tools)
	for i, t := range c.Tools {
		if t.Approval == "admin" && !hasKey(c.Auth.AdminKeys) {
			v.add(fmt.Sprintf("tools[%d].approval", i), "admin needs auth.admin_keys: without an admin key nobody could approve its calls")
		}
	}
	v.mcpServers(c)
	v.openAPITools(c)
	v.hostedTools(c)
	v.policies(c.Policies)
	v.oneOf("log.format", c.Log.Format, "text", "json")
	v.oneOf("log.level", c.Log.Level, "debug", "info", "warn", "error")
	v.otel(c.Otel)
	return v.problems
}

func (v *validator) listen(p, addr string) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		v.add(p, "invalid address %q (want host:port, e.g. 127.0.0.1:8080, or :8080 for all interfaces)", addr)
		return
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		v.add(p, "port %q of %q is not a number from 0 to 65535", port, addr)
	}
}

func (v *validator) auth(c *Config) {
	a := c.Auth
	v.clientKeys("auth.keys", a.Keys)
	v.keys("auth.admin_keys", a.AdminKeys)
	// docs/configuration.md: no keys on a non-loopback address refuses to
	// start; saying so here lets "toolstream check" catch it before a deploy
	// does.
	if !a.AllowOpen && !hasClientKey(a.Keys) && !isLoopback(c.Listen) {
		v.add("auth.keys", "no client keys while listen %q is not loopback: anyone who can reach it may use the upstreams (set auth.keys, or auth.allow_open: true to allow it)", c.Listen)
	}
	v.hostGlobs("auth.webhook_allow", a.WebhookAllow)
	v.hostGlobs("auth.mcp_allow", a.MCPAllow)
	v.oneOf("auth.metrics", a.Metrics, "open", "admin")
	if a.Metrics == "admin" && !hasKey(a.AdminKeys) {
		v.add("auth.metrics", "admin, but there are no auth.admin_keys: nobody could read /metrics (add an admin key, or set metrics: open)")
	}
}

// hostGlobs checks a list of host globs (auth.webhook_allow,
// auth.mcp_allow): hosts without scheme, path or port.
func (v *validator) hostGlobs(param string, globs []string) {
	for i, g := range globs {
		p := fmt.Sprintf("%s[%d]", param, i)
		switch {
		case g == "":
			v.add(p, "empty host glob (want e.g. hooks.example.com or *.internal)")
		case strings.Contains(g, "/"):
			v.add(p, "%q is not a host glob (want a host pattern like *.example.com, without scheme or path)", g)
		case strings.Count(g, ":") == 1:
			v.add(p, "%q has a port: the list names hosts, any port of an allowed host may be used (write %q)", g, g[:strings.Index(g, ":")])
		default:
			v.pattern(p, g)
		}
	}
}

func (v *validator) storage(s Storage) {
	switch s.Backend {
	case BackendBadger:
		if s.Path == "" && !s.InMemory {
			v.add("storage.path", "required unless storage.in_memory is true (e.g. ./toolstream-data)")
		}
		if s.Postgres.DSN != "" {
			// Replicas started this way would each keep their own state
			// and look as if they shared it.
			v.add("storage.postgres.dsn", "is set, but storage.backend is badger, which does not use it; set storage.backend: postgres to share the database between replicas, or leave the dsn empty")
		}
	case BackendPostgres:
		v.postgres(s)
	default:
		v.add("storage.backend", "unknown value %q (want badger or postgres)", s.Backend)
	}
	v.positiveDuration("storage.audit_retention", s.AuditRetention)
	v.positiveDuration("storage.turn_retention", s.TurnRetention)
}

// uniqueName checks list[i].name: present, shaped like re, not used by an
// earlier entry (first maps names to their index). It reports whether the
// name is good and new.
func (v *validator) uniqueName(first map[string]int, list string, i int, name string, re *regexp.Regexp, missing, shape string) bool {
	p := fmt.Sprintf("%s[%d].name", list, i)
	if !v.name(p, name, re, missing, shape) {
		return false
	}
	if j, dup := first[name]; dup {
		v.add(p, "duplicate name %q (first used by %s)", name, v.where(fmt.Sprintf("%s[%d]", list, j)))
		return false
	}
	first[name] = i
	return true
}

// name checks a name is present and shaped like re.
func (v *validator) name(p, name string, re *regexp.Regexp, missing, shape string) bool {
	switch {
	case name == "":
		v.add(p, "%s", missing)
	case !re.MatchString(name):
		v.add(p, "%q %s", name, shape)
	default:
		return true
	}
	return false
}

func (v *validator) loop(l Loop) {
	if l.MaxRounds < 1 {
		v.add("loop.max_rounds", "must be at least 1, got %d", l.MaxRounds)
	}
	v.positiveDuration("loop.tool_timeout", l.ToolTimeout)
	v.oneOf("loop.display", l.Display, DisplayEvents, DisplayMarkdown, DisplayNone)
	v.positiveSize("loop.display_result_bytes", l.DisplayResultBytes)
	if l.Keepalive < 0 {
		v.add("loop.keepalive", "must not be negative, got %s (0 disables keepalives)", l.Keepalive)
	}
	v.positiveSize("loop.max_block_bytes", l.MaxBlockBytes)
	if l.ParseRetries < 0 {
		v.add("loop.parse_retries", "must not be negative, got %d (0 means no retries)", l.ParseRetries)
	}
	v.oneOf("loop.result_role", l.ResultRole, "user", "system")
	v.positiveDuration("loop.approval_timeout", l.ApprovalTimeout)
	if l.ToolSearchThreshold < 0 {
		v.add("loop.tool_search_threshold", "must not be negative, got %d (0 turns tool search off)", l.ToolSearchThreshold)
	}
}

// toolName is OpenAI's rule for function names.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Messages for a tool's name, shared by the file's list and [CheckTool].
const (
	toolNameMissing = "required (what the model calls, e.g. get_weather)"
	toolNameShape   = "must be 1 to 64 letters, digits, '_' or '-' (OpenAI's rule for function names)"
)

func (v *validator) tools(tools []Tool) {
	first := map[string]int{}
	for i := range tools {
		v.uniqueName(first, "tools", i, tools[i].Name, toolName, toolNameMissing, toolNameShape)
		v.tool(fmt.Sprintf("tools[%d]", i), &tools[i])
	}
}

// CheckTool checks one tools entry by the rules of the file, its name
// included; path prefixes the problems' paths ("tools[2]" in a file, ""
// for a tool on its own, such as one registered through the admin API).
// Problems have no file or position. Uniqueness is the caller's to check:
// it depends on the tools beside this one.
func CheckTool(t Tool, path string) []Problem {
	v := &validator{}
	v.name(join(path, "name"), t.Name, toolName, toolNameMissing, toolNameShape)
	v.tool(path, &t)
	return v.problems
}

// tool checks everything of a tools entry but its name.
func (v *validator) tool(p string, t *Tool) {
	if msg := checkSchema(t.Parameters); msg != "" {
		v.add(join(p, "parameters"), "%s", msg)
	}
	if w := t.Webhook; w == nil {
		v.add(join(p, "webhook"), "required (a webhook with at least url: http://…)")
	} else {
		v.httpURL(join(p, "webhook.url"), w.URL)
		v.headers(join(p, "webhook.headers"), secretValues(w.Headers))
		if w.Timeout < 0 {
			v.add(join(p, "webhook.timeout"), "must be positive, got %s (leave it out to use loop.tool_timeout)", w.Timeout)
		}
	}
	v.oneOf(join(p, "approval"), t.Approval, "never", "always", "admin")
	v.positiveSize(join(p, "max_result_bytes"), t.MaxResultBytes)
	for k, r := range t.Redact {
		if r == "" {
			v.add(fmt.Sprintf("%s[%d]", join(p, "redact"), k), "empty field name (want an argument name like password)")
		}
	}
}

// httpURL checks an http or https URL and reports whether it is good.
func (v *validator) httpURL(p, raw string) bool {
	if raw == "" {
		v.add(p, "required (an http or https URL)")
		return false
	}
	u, err := url.Parse(raw)
	shown := raw
	if err == nil {
		shown = u.Redacted() // a password in user:pass@host stays out of messages
	}
	switch {
	case !strings.Contains(raw, "://"):
		v.add(p, "%q must start with http:// or https://", shown)
	case err != nil:
		// Not printed: it could hold a password the parser cannot mask.
		v.add(p, "invalid URL (want e.g. http://127.0.0.1:9000/path): %v", errors.Unwrap(err))
	case u.Scheme != "http" && u.Scheme != "https":
		v.add(p, "%q must start with http:// or https://", shown)
	case u.Host == "":
		v.add(p, "%q has no host", shown)
	default:
		return true
	}
	return false
}

// headers checks names are HTTP tokens and values cannot split a header
// (a newline from an environment variable would).
func (v *validator) headers(p string, h map[string]string) {
	seen := map[string]string{}
	for _, name := range sortedKeys(h) {
		hp := p + "." + name
		if !isToken(name) {
			v.add(hp, "%q is not a valid header name", name)
		}
		if msg := headerValueProblem(h[name]); msg != "" {
			v.add(hp, "value %s", msg) // not the value: it may be a token
		}
		if other, dup := seen[strings.ToLower(name)]; dup {
			v.add(hp, "same header as %s (header names are case-insensitive)", other)
		}
		seen[strings.ToLower(name)] = name
	}
}

func (v *validator) pattern(p, pat string) {
	if pat == "" {
		v.add(p, "empty pattern (want e.g. gpt-* or llama3.1:8b)")
		return
	}
	if _, err := path.Match(pat, ""); err != nil {
		v.add(p, "bad pattern %q (path.Match syntax: * any run, ? one character, [a-z] a class, \\ escapes)", pat)
	}
}

func (v *validator) oneOf(p, val string, choices ...string) {
	for _, c := range choices {
		if val == c {
			return
		}
	}
	want := strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
	v.add(p, "unknown value %q (want %s)", val, want)
}

func (v *validator) positiveDuration(p string, d time.Duration) {
	if d <= 0 {
		v.add(p, "must be positive, got %s", d)
	}
}

func (v *validator) positiveSize(p string, s Size) {
	if s <= 0 {
		v.add(p, "must be positive, got %s", s)
	}
}

func hasKey(keys []Secret) bool {
	for _, k := range keys {
		if k != "" {
			return true
		}
	}
	return false
}

// isLoopback reports whether a listen address only accepts local
// connections. Host names other than localhost are not resolved (config
// does no network I/O) and count as non-loopback. An invalid address
// counts as loopback: listen already reports it.
func isLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return true
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func isSpaceOrControl(r rune) bool {
	return r <= ' ' || r == 0x7f || unicode.IsSpace(r)
}

// headerValueProblem says why s cannot be sent as a header value, or "".
// A line break would end the header and start another (header
// injection); net/http refuses the other control characters, so a round
// would fail on every request instead of at load time.
func headerValueProblem(s string) string {
	switch {
	case strings.ContainsAny(s, "\r\n\x00"):
		return "contains a line break or NUL (check the variable's value for a trailing newline)"
	case strings.ContainsFunc(s, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }):
		return "contains a control character, which a header cannot carry"
	}
	return ""
}

// isToken reports whether s is an HTTP token (RFC 9110 §5.6.2), the
// syntax of header names.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c <= ' ' || strings.IndexByte("\"(),/:;<=>?@[\\]{}\x7f", c) >= 0 {
			return false
		}
	}
	return true
}

func secretValues(m map[string]Secret) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v.Value()
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
