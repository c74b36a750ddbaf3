package config

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

var upstreamName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

func (v *validator) upstreams(c *Config) {
	first := map[string]int{}
	var names []string
	for i := range c.Upstreams {
		u := &c.Upstreams[i]
		p := fmt.Sprintf("upstreams[%d]", i)
		if v.uniqueName(first, "upstreams", i, u.Name, upstreamName,
			"required (a short name like local or openai)",
			"may only contain letters, digits, '_', '.' and '-'") {
			names = append(names, u.Name)
		}
		v.servers(p, u)
		v.oneOf(p+".balance", u.Balance, BalanceLeastBusy, BalanceRoundRobin)
		v.healthCheck(p+".health_check", u.HealthCheck)
		if msg := headerValueProblem(u.APIKey.Value()); msg != "" {
			v.add(p+".api_key", "%s", msg) // never the key itself
		}
		v.models(p, u.Models)
		v.oneOf(p+".tool_mode", u.ToolMode, ToolModeNative, ToolModeText, ToolModeAuto)
		v.oneOf(p+".text_format", u.TextFormat, TextFormats...)
		v.positiveDuration(p+".timeout", u.Timeout)
		v.positiveDuration(p+".idle_timeout", u.IdleTimeout)
		v.positiveDuration(p+".connect_timeout", u.ConnectTimeout)
		v.positiveDuration(p+".header_timeout", u.HeaderTimeout)
		v.headers(p+".headers", u.Headers)
		for name := range u.Headers {
			if strings.EqualFold(name, "Authorization") && u.APIKey != "" {
				v.add(p+".headers."+name, "conflicts with api_key, which is sent as Authorization: Bearer (set one of them)")
			}
		}
	}
	// After the loop: a fallback may name an upstream further down.
	for i := range c.Upstreams {
		v.fallbacks(c, i, names)
	}
	if d := c.DefaultUpstream; d != "" {
		if _, ok := c.Upstream(d); !ok {
			v.add("default_upstream", "no upstream named %q (%s)", d, have(names))
		}
	}
}

// have lists the upstream names for a message about a name that is not
// one of them.
func have(names []string) string {
	if len(names) == 0 {
		return "none are configured"
	}
	return "have " + strings.Join(names, ", ")
}

// servers checks base_url and base_urls: exactly one is set, each URL is
// one rounds can be sent to, and a pool lists each server once.
func (v *validator) servers(p string, u *Upstream) {
	switch {
	case u.BaseURL == "" && len(u.BaseURLs) == 0:
		v.add(p+".base_url", "required (an http or https URL, or base_urls: a list of them for a pool of servers)")
		return
	case u.BaseURL != "" && len(u.BaseURLs) > 0:
		// Which would win is not obvious, so neither does.
		v.add(p+".base_urls", "set base_url (one server) or base_urls (a pool of servers), not both")
	}
	if u.BaseURL != "" {
		v.baseURL(p+".base_url", u.BaseURL)
	}
	seen := map[string]int{}
	for k, raw := range u.BaseURLs {
		ep := fmt.Sprintf("%s.base_urls[%d]", p, k)
		if !v.baseURL(ep, raw) {
			continue
		}
		// The same server twice would get twice the rounds and look like
		// two servers on /readyz.
		key := serverKey(raw)
		if j, dup := seen[key]; dup {
			v.add(ep, "the same server as base_urls[%d] (list each server of a pool once)", j)
			continue
		}
		seen[key] = k
	}
}

// baseURL checks one server's API root: the rules of every http URL, and
// those only a base URL has. It reports whether raw is good.
func (v *validator) baseURL(p, raw string) bool {
	if !v.httpURL(p, raw) {
		return false
	}
	u, _ := url.Parse(raw) // httpURL parsed it already
	ok := true
	if u.User != nil {
		// The URL is not printed: the user part may be a token. net/http
		// turns user info into Basic auth while toolstream's own client
		// would drop it, so one config would authenticate two ways.
		v.add(p, "credentials in the URL (user:password@host) are not allowed: put them in api_key or headers")
		ok = false
	}
	if strings.Contains(raw, "#") {
		v.add(p, "has a fragment (#…), which is never sent to a server: remove it")
		ok = false
	}
	if strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/chat/completions") {
		v.add(p, "is the API root, e.g. http://127.0.0.1:11434/v1; toolstream appends /chat/completions itself")
		ok = false
	}
	return ok
}

// serverKey is what makes two base URLs the same server: scheme and host
// are case-insensitive, and a trailing slash changes nothing (toolstream
// trims it before appending a path).
func serverKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) +
		strings.TrimRight(u.EscapedPath(), "/") + "?" + u.RawQuery
}

// healthCheck checks an upstream's health_check. There is no way to turn
// it off: a server that stopped answering would keep getting rounds.
func (v *validator) healthCheck(p string, h HealthCheck) {
	if h.Interval <= 0 {
		v.add(p+".interval", "must be positive, got %s (the health check cannot be turned off; a longer interval such as 1m probes less often)", h.Interval)
	}
	pp, path := p+".path", h.Path
	switch {
	case path == "":
		v.add(pp, "required (a path under the base URL, e.g. /models)")
	case !strings.HasPrefix(path, "/"):
		v.add(pp, "%q must start with / (it is appended to the base URL, e.g. /models)", path)
	case strings.Contains(path, "?"):
		v.add(pp, "%q has a query (?…): write the path alone, e.g. /models; a query in the base URL is sent with it", path)
	case strings.Contains(path, "#"):
		v.add(pp, "%q has a fragment (#…), which is never sent to a server: remove it", path)
	case strings.ContainsFunc(path, isSpaceOrControl):
		v.add(pp, "%q contains spaces or control characters (escape them, e.g. %%20)", path)
	default:
		if _, err := url.ParseRequestURI(path); err != nil {
			v.add(pp, "invalid path %q (want e.g. /models)", path)
		}
	}
}

// fallbacks checks upstream i's fallbacks: each names another upstream,
// once. A cycle is fine: fallbacks are not followed transitively.
func (v *validator) fallbacks(c *Config, i int, names []string) {
	u := &c.Upstreams[i]
	seen := map[string]int{}
	for k, name := range u.Fallbacks {
		ep := fmt.Sprintf("upstreams[%d].fallbacks[%d]", i, k)
		j, dup := seen[name]
		_, known := c.Upstream(name)
		switch {
		case name == "":
			v.add(ep, "empty name (want the name of another upstream)")
		case name == u.Name:
			v.add(ep, "%q is this upstream itself (a fallback is another upstream; a pool's other servers are tried before any fallback)", name)
		case dup:
			v.add(ep, "%q is already listed at fallbacks[%d]", name, j)
		case !known:
			v.add(ep, "no upstream named %q (%s)", name, have(names))
		}
		if _, ok := seen[name]; !ok {
			seen[name] = k
		}
	}
}

// models checks one upstream's models entries. An alias may be defined on
// several upstreams — routing takes the first, and a fallback maps the
// model by its own entry — but only once on each: a second definition on
// the same upstream would never be used, unnoticed.
func (v *validator) models(p string, models []Model) {
	aliases := map[string]string{} // alias name → where it is defined
	for k, m := range models {
		ep := fmt.Sprintf("%s.models[%d]", p, k)
		if !m.IsAlias() {
			// {name: x} without a model is the pattern x, as if
			// written as a string.
			v.pattern(ep, m.Name)
			continue
		}
		switch {
		case m.Name == "":
			v.add(ep+".name", "required: the model name clients send, e.g. fast")
		case !m.IsLiteral():
			v.add(ep+".name", "an alias names one model; %q is a pattern", m.Name)
		case aliases[m.Name] != "":
			v.add(ep+".name", "alias %q is already defined on this upstream at %s", m.Name, v.where(aliases[m.Name]))
		default:
			aliases[m.Name] = ep
		}
		if strings.ContainsAny(m.Model, `*?[\`) {
			v.add(ep+".model", "must be the upstream's model id, not a pattern (got %q)", m.Model)
		}
	}
}
