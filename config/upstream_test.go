package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
)

// two is a second upstream, for fallbacks to name.
const two = "  - name: w\n    base_url: http://w/v1\n"

// TestUpstreamRules has one case per rule of base_urls, balance,
// health_check, fallbacks and the stricter URL and header rules: each
// breaks it once and pins the message and its line:col.
func TestUpstreamRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		src  string
		vars map[string]string
		want []string
	}{
		// base_url and base_urls.
		{"base_url and base_urls", up + "    base_urls: [http://a/v1]\n", nil, []string{
			`t.yaml:4:5: upstreams[0].base_urls: set base_url (one server) or base_urls (a pool of servers), not both`}},
		{"empty base_urls is no server", "upstreams:\n  - name: u\n    base_urls: []\n", nil, []string{
			`t.yaml:2:5: upstreams[0].base_url: required (an http or https URL, or base_urls: a list of them for a pool of servers)`}},
		{"base_urls entry scheme", "upstreams:\n  - name: u\n    base_urls: [http://a/v1, \"ws://b/v1\"]\n", nil, []string{
			`t.yaml:3:30: upstreams[0].base_urls[1]: "ws://b/v1" must start with http:// or https://`}},
		{"base_urls entry empty", "upstreams:\n  - name: u\n    base_urls:\n      - http://a/v1\n      - \"\"\n", nil, []string{
			`t.yaml:5:9: upstreams[0].base_urls[1]: required (an http or https URL)`}},
		{"base_urls duplicate", "upstreams:\n  - name: u\n    base_urls:\n      - http://a/v1\n      - http://b/v1\n      - HTTP://A/v1/\n", nil, []string{
			`t.yaml:6:9: upstreams[0].base_urls[2]: the same server as base_urls[0] (list each server of a pool once)`}},
		{"base_urls entry with endpoint", "upstreams:\n  - name: u\n    base_urls: [\"http://a/v1/chat/completions\"]\n", nil, []string{
			`t.yaml:3:17: upstreams[0].base_urls[0]: is the API root, e.g. http://127.0.0.1:11434/v1; toolstream appends /chat/completions itself`}},
		{"base_url with credentials", "upstreams:\n  - name: u\n    base_url: \"http://me:hunter2@h/v1\"\n", nil, []string{
			`t.yaml:3:15: upstreams[0].base_url: credentials in the URL (user:password@host) are not allowed: put them in api_key or headers`}},
		{"base_url with a user only", "upstreams:\n  - name: u\n    base_url: \"https://${TOKEN}@h/v1\"\n", map[string]string{"TOKEN": "ghp_secret"}, []string{
			`t.yaml:3:15: upstreams[0].base_url: credentials in the URL (user:password@host) are not allowed: put them in api_key or headers`}},
		{"base_urls entry with credentials", "upstreams:\n  - name: u\n    base_urls: [\"http://a/v1\", \"http://me:pw@b/v1\"]\n", nil, []string{
			`t.yaml:3:32: upstreams[0].base_urls[1]: credentials in the URL (user:password@host) are not allowed: put them in api_key or headers`}},
		{"base_url with a fragment", "upstreams:\n  - name: u\n    base_url: \"http://h/v1#top\"\n", nil, []string{
			`t.yaml:3:15: upstreams[0].base_url: has a fragment (#…), which is never sent to a server: remove it`}},
		{"base_url with an empty fragment", "upstreams:\n  - name: u\n    base_url: \"http://h/v1#\"\n", nil, []string{
			`t.yaml:3:15: upstreams[0].base_url: has a fragment (#…), which is never sent to a server: remove it`}},

		// api_key and headers.
		{"api_key with a newline", up + "    api_key: \"${K}\"\n", map[string]string{"K": "sk-secret\n"}, []string{
			`t.yaml:4:14: upstreams[0].api_key: contains a line break or NUL (check the variable's value for a trailing newline)`}},
		{"api_key with a carriage return", up + "    api_key: \"${K}\"\n", map[string]string{"K": "sk-se\rcret"}, []string{
			`t.yaml:4:14: upstreams[0].api_key: contains a line break or NUL (check the variable's value for a trailing newline)`}},
		{"api_key with a control character", up + "    api_key: \"${K}\"\n", map[string]string{"K": "sk-\x1bsecret"}, []string{
			`t.yaml:4:14: upstreams[0].api_key: contains a control character, which a header cannot carry`}},
		{"header value with a control character", up + "    headers:\n      X-A: \"${V}\"\n", map[string]string{"V": "a\x01b"}, []string{
			`t.yaml:5:12: upstreams[0].headers.X-A: value contains a control character, which a header cannot carry`}},
		{"header value with a carriage return", up + "    headers:\n      X-A: \"${V}\"\n", map[string]string{"V": "a\rb"}, []string{
			`t.yaml:5:12: upstreams[0].headers.X-A: value contains a line break or NUL (check the variable's value for a trailing newline)`}},

		// balance.
		{"balance unknown", up + "    balance: fastest\n", nil, []string{
			`t.yaml:4:14: upstreams[0].balance: unknown value "fastest" (want least_busy or round_robin)`}},

		// health_check.
		{"health_check interval zero", up + "    health_check: {interval: 0s}\n", nil, []string{
			`t.yaml:4:30: upstreams[0].health_check.interval: must be positive, got 0s (the health check cannot be turned off; a longer interval such as 1m probes less often)`}},
		{"health_check interval negative", up + "    health_check:\n      interval: -5s\n", nil, []string{
			`t.yaml:5:17: upstreams[0].health_check.interval: must be positive, got -5s (the health check cannot be turned off; a longer interval such as 1m probes less often)`}},
		{"health_check path empty", up + "    health_check: {path: \"\"}\n", nil, []string{
			`t.yaml:4:26: upstreams[0].health_check.path: required (a path under the base URL, e.g. /models)`}},
		{"health_check path relative", up + "    health_check: {path: models}\n", nil, []string{
			`t.yaml:4:26: upstreams[0].health_check.path: "models" must start with / (it is appended to the base URL, e.g. /models)`}},
		{"health_check path with a query", up + "    health_check: {path: \"/models?limit=1\"}\n", nil, []string{
			`t.yaml:4:26: upstreams[0].health_check.path: "/models?limit=1" has a query (?…): write the path alone, e.g. /models; a query in the base URL is sent with it`}},
		{"health_check path with a fragment", up + "    health_check: {path: \"/models#x\"}\n", nil, []string{
			`t.yaml:4:26: upstreams[0].health_check.path: "/models#x" has a fragment (#…), which is never sent to a server: remove it`}},
		{"health_check path with a space", up + "    health_check: {path: \"/my models\"}\n", nil, []string{
			`t.yaml:4:26: upstreams[0].health_check.path: "/my models" contains spaces or control characters (escape them, e.g. %20)`}},
		{"health_check path bad escape", up + "    health_check: {path: \"/m%zz\"}\n", nil, []string{
			`t.yaml:4:26: upstreams[0].health_check.path: invalid path "/m%zz" (want e.g. /models)`}},
		{"health_check unknown key", up + "    health_check: {enabled: false}\n", nil, []string{
			`t.yaml:4:20: upstreams[0].health_check.enabled: unknown key (want one of interval, path)`}},

		// fallbacks.
		{"fallback unknown", up + "    fallbacks: [w, x]\n" + two, nil, []string{
			`t.yaml:4:20: upstreams[0].fallbacks[1]: no upstream named "x" (have u, w)`}},
		{"fallback itself", up + "    fallbacks: [u]\n", nil, []string{
			`t.yaml:4:17: upstreams[0].fallbacks[0]: "u" is this upstream itself (a fallback is another upstream; a pool's other servers are tried before any fallback)`}},
		{"fallback twice", up + "    fallbacks:\n      - w\n      - w\n" + two, nil, []string{
			`t.yaml:6:9: upstreams[0].fallbacks[1]: "w" is already listed at fallbacks[0]`}},
		{"fallback empty", up + "    fallbacks: [\"${F:-}\"]\n" + two, nil, []string{
			`t.yaml:4:17: upstreams[0].fallbacks[0]: empty name (want the name of another upstream)`}},
		{"fallback a list", up + "    fallbacks: w\n" + two, nil, []string{
			`t.yaml:4:16: upstreams[0].fallbacks: want a list, got the single value "w" (write ["w"] for a list of one)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := problems(t, tc.src, tc.vars)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			// No secret of these cases may reach a message.
			for _, secret := range []string{"hunter2", "secret", "ghp_", "me:"} {
				for _, p := range got {
					if strings.Contains(p, secret) {
						t.Errorf("message shows %q: %s", secret, p)
					}
				}
			}
		})
	}
}

// TestUpstreamAccepts pins the edges of the rules from the valid side.
func TestUpstreamAccepts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, src string }{
		{"a pool", "upstreams:\n  - {name: u, base_urls: [\"http://a/v1\", \"http://b/v1\", \"https://a/v1\"]}\n"},
		{"a pool of one", "upstreams:\n  - {name: u, base_urls: [\"http://a/v1\"]}\n"},
		{"same host, other paths", "upstreams:\n  - {name: u, base_urls: [\"http://a/v1\", \"http://a/v2\"]}\n"},
		{"base_url with a query", "upstreams:\n  - {name: u, base_url: \"https://r.openai.azure.com/openai/v1?api-version=preview\"}\n"},
		{"empty base_urls beside base_url", up + "    base_urls: []\n"},
		{"balance with a single base_url", up + "    balance: round_robin\n"},
		{"health_check on a single base_url", up + "    health_check: {interval: 1s, path: /health}\n"},
		{"health_check path with an escape", up + "    health_check: {path: \"/my%20models\"}\n"},
		{"fallbacks in a cycle", up + "    fallbacks: [w]\n" + two + "    fallbacks: [u]\n"},
		{"fallback to an upstream further down", up + "    fallbacks: [w, v]\n" + two + "  - {name: v, base_url: \"http://v/v1\"}\n"},
		{"api_key with a tab and spaces", up + "    api_key: \"a b\\tc\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mustParse(t, tc.src, nil)
		})
	}
}

// TestUpstreamDefaults: an entry without the new keys gets least_busy
// and a health check of /models every 10s; a health_check that sets one
// key keeps the other's default.
func TestUpstreamDefaults(t *testing.T) {
	t.Parallel()
	u := mustParse(t, up, nil).Upstreams[0]
	want := config.HealthCheck{Interval: 10 * time.Second, Path: "/models"}
	if u.Balance != config.BalanceLeastBusy || u.HealthCheck != want || u.BaseURLs != nil || u.Fallbacks != nil {
		t.Errorf("defaults: balance %q, health_check %+v, base_urls %q, fallbacks %q; want least_busy, %+v, none, none",
			u.Balance, u.HealthCheck, u.BaseURLs, u.Fallbacks, want)
	}
	if d := config.DefaultUpstreamEntry(); d.Balance != u.Balance || d.HealthCheck != want {
		t.Errorf("DefaultUpstreamEntry: balance %q, health_check %+v", d.Balance, d.HealthCheck)
	}
	u = mustParse(t, up+"    health_check: {interval: 30s}\n", nil).Upstreams[0]
	if want := (config.HealthCheck{Interval: 30 * time.Second, Path: "/models"}); u.HealthCheck != want {
		t.Errorf("health_check {interval: 30s} = %+v, want %+v", u.HealthCheck, want)
	}
	u = mustParse(t, up+"    health_check: {path: /health}\n    balance: round_robin\n    fallbacks: [w]\n"+two, nil).Upstreams[0]
	if want := (config.HealthCheck{Interval: 10 * time.Second, Path: "/health"}); u.HealthCheck != want {
		t.Errorf("health_check {path: /health} = %+v, want %+v", u.HealthCheck, want)
	}
	if u.Balance != config.BalanceRoundRobin || !cmp.Equal(u.Fallbacks, []string{"w"}) {
		t.Errorf("balance %q, fallbacks %q; want round_robin, [w]", u.Balance, u.Fallbacks)
	}
}

// TestServers: Servers is base_urls for a pool, else base_url alone, as
// written (the query kept), and the caller may change what it returns.
func TestServers(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, "upstreams:\n"+
		"  - {name: one, base_url: \"http://h/v1?api-version=2\"}\n"+
		"  - {name: pool, base_urls: [\"http://a/v1\", \"http://b/v1/\"]}\n", nil)
	if got, want := cfg.Upstreams[0].Servers(), []string{"http://h/v1?api-version=2"}; !cmp.Equal(got, want) {
		t.Errorf("Servers() of a base_url = %q, want %q", got, want)
	}
	pool := cfg.Upstreams[1]
	got := pool.Servers()
	if want := []string{"http://a/v1", "http://b/v1/"}; !cmp.Equal(got, want) {
		t.Errorf("Servers() of a pool = %q, want %q", got, want)
	}
	got[0] = "changed"
	if pool.BaseURLs[0] != "http://a/v1" {
		t.Errorf("changing what Servers returned changed base_urls: %q", pool.BaseURLs)
	}
	if got := (config.Upstream{}).Servers(); got != nil {
		t.Errorf("Servers() with neither = %q, want nil", got)
	}
}
