package config_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeProblems covers what the walker refuses before validation:
// unknown and duplicate keys at every level, wrong types, YAML syntax.
func TestDecodeProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		// Unknown keys, one per level.
		{"unknown top-level key", "lisen: :80\n", []string{
			`t.yaml:1:1: lisen: unknown key (did you mean listen?)`}},
		{"unknown key far from any", "colour: red\n", []string{
			`t.yaml:1:1: colour: unknown key (want one of auth, default_upstream, hosted_tools, listen, log, loop, max_request_bytes, mcp_servers, openapi_tools, otel, policies, read_body_timeout, read_idle_timeout, shutdown_grace, storage, tools, upstreams, write_idle_timeout)`}},
		{"LiteLLM key", "model_list: []\n", []string{
			`t.yaml:1:1: model_list: unknown key (LiteLLM's model_list is upstreams in toolstream; see docs/configuration.md#coming-from-litellm)`}},
		{"unknown auth key", "auth:\n  key: [a]\n", []string{
			`t.yaml:2:3: auth.key: unknown key (did you mean keys?)`}},
		{"unknown storage key", "storage:\n  dir: x\n", []string{
			`t.yaml:2:3: storage.dir: unknown key (want one of audit_retention, backend, in_memory, path, postgres, turn_retention)`}},
		{"unknown upstream key", up + "    api_base: http://x\n", []string{
			`t.yaml:4:5: upstreams[0].api_base: unknown key (LiteLLM's api_base is base_url in toolstream; see docs/configuration.md#coming-from-litellm)`}},
		{"unknown loop key", "loop:\n  max_round: 3\n", []string{
			`t.yaml:2:3: loop.max_round: unknown key (did you mean max_rounds?)`}},
		{"unknown tool key", tool + "    approvals: always\n", []string{
			`t.yaml:4:5: tools[0].approvals: unknown key (did you mean approval?)`}},
		{"unknown webhook key", "tools:\n  - name: t\n    webhook: {url: \"http://h/\", method: PUT}\n", []string{
			`t.yaml:3:33: tools[0].webhook.method: unknown key (want one of headers, secret, timeout, url)`}},
		{"unknown log key", "log:\n  Level: info\n", []string{
			`t.yaml:2:3: log.Level: unknown key (did you mean level?)`}},

		// Duplicate keys.
		{"duplicate top-level key", "listen: 127.0.0.1:1\nlisten: 127.0.0.1:2\n", []string{
			`t.yaml:2:1: listen: duplicate key (first at line 1)`}},
		{"duplicate nested key", "loop:\n  keepalive: 1s\n  display: none\n  keepalive: 2s\n", []string{
			`t.yaml:4:3: loop.keepalive: duplicate key (first at line 2)`}},
		{"duplicate header", up + "    headers: {X-A: 1, X-A: 2}\n", []string{
			`t.yaml:4:23: upstreams[0].headers.X-A: duplicate key (first at line 4)`}},
		{"duplicate in parameters", tool + "    parameters:\n      type: object\n      type: object\n", []string{
			`t.yaml:6:7: tools[0].parameters.type: duplicate key (first at line 5)`}},
		{"merge key", "base: &b {timeout: 1m}\n", []string{
			`t.yaml:1:1: base: unknown key (want one of auth, default_upstream, hosted_tools, listen, log, loop, max_request_bytes, mcp_servers, openapi_tools, otel, policies, read_body_timeout, read_idle_timeout, shutdown_grace, storage, tools, upstreams, write_idle_timeout)`}},
		{"merge key in an entry", "upstreams:\n  - <<: {timeout: 1m}\n    name: u\n    base_url: http://h/v1\n", []string{
			`t.yaml:2:5: upstreams[0].<<: merge keys (<<) are not supported; write the keys out`}},
		{"non-scalar key", "? [a, b]\n: c\n", []string{
			`t.yaml:1:3: a key must be a plain string, got a list`}},

		// Types.
		{"string got mapping", "listen: {host: x}\n", []string{
			`t.yaml:1:1: listen: want a string, got a mapping`}},
		{"integer got text", "loop:\n  max_rounds: eight\n", []string{
			`t.yaml:2:15: loop.max_rounds: want an integer, got "eight"`}},
		{"integer got float", "loop:\n  max_rounds: 2.5\n", []string{
			`t.yaml:2:15: loop.max_rounds: want an integer, got "2.5"`}},
		{"bool got yes", "auth:\n  allow_open: yes\n", []string{
			`t.yaml:2:15: auth.allow_open: want true or false, got "yes"`}},
		{"upstream bool got text", up + "    implicit_think: sometimes\n", []string{
			`t.yaml:4:21: upstreams[0].implicit_think: want true or false, got "sometimes"`}},
		{"duration bare integer", "loop:\n  tool_timeout: 30\n", []string{
			`t.yaml:2:17: loop.tool_timeout: duration "30" has no unit (write 30s, 30m or 30h)`}},
		{"duration in days", "storage:\n  audit_retention: 30d\n", []string{
			`t.yaml:2:20: storage.audit_retention: duration "30d": Go durations have no day unit (write 720h)`}},
		{"duration garbage", "loop:\n  keepalive: soon\n", []string{
			`t.yaml:2:14: loop.keepalive: invalid duration "soon" (want a Go duration like 30s, 5m or 720h)`}},
		{"duration got list", "loop:\n  keepalive: [1s]\n", []string{
			`t.yaml:2:3: loop.keepalive: want a duration like 30s, got a list`}},
		{"size garbage", "max_request_bytes: lots\n", []string{
			`t.yaml:1:20: max_request_bytes: size "lots" is not a number with a unit (want e.g. 512B, 64KiB, 1MiB)`}},
		{"size negative", "loop:\n  max_block_bytes: -1KiB\n", []string{
			`t.yaml:2:20: loop.max_block_bytes: size "-1KiB" is negative (want a byte count like 64KiB)`}},
		{"list got scalar", up + "    models: gpt-*\n", []string{
			`t.yaml:4:13: upstreams[0].models: want a list, got the single value "gpt-*" (write ["gpt-*"] for a list of one)`}},
		{"key list got scalar", "auth:\n  admin_keys: sk-admin-secret\n", []string{
			`t.yaml:2:15: auth.admin_keys: want a list, got a single value (write it in [ ] for a list of one)`}},
		{"struct got list", "loop: [a]\n", []string{
			`t.yaml:1:1: loop: want a mapping of keys, got a list`}},
		{"entry got scalar", "upstreams: [local]\n", []string{
			`t.yaml:1:13: upstreams[0]: want a mapping of keys, got a scalar`}},
		{"headers got list", up + "    headers: [X-A]\n", []string{
			`t.yaml:4:5: upstreams[0].headers: want a mapping, got a list`}},
		{"top level not a mapping", "- listen: :80\n", []string{
			`t.yaml:1:1: want a mapping of keys, got a list`}},

		// YAML itself.
		{"syntax error", "listen: :80\nloop:\n  max_rounds: 3\n   display: none\n", []string{
			`t.yaml:4:4: invalid YAML indentation: this line is indented 3 spaces, more than line 3 (2 spaces) whose value is already complete; align it with the keys beside it`}},
		{"tab indentation", "loop:\n\tmax_rounds: 3\n", []string{
			`t.yaml:2:1: invalid YAML indentation: a tab; YAML indents with spaces only`}},
		{"unknown anchor", "listen: *nope\n", []string{
			`t.yaml: invalid YAML: unknown anchor 'nope' referenced`}},
		{"two documents", "listen: :1\n---\nlisten: :2\n", []string{
			`t.yaml:2:1: a second YAML document (after ---); put the whole configuration in one`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, problems(t, tc.src, nil)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeNoDerivedProblems: a value that failed to decode keeps its
// default and is not complained about a second time by validation.
func TestDecodeNoDerivedProblems(t *testing.T) {
	t.Parallel()
	src := "upstreams:\n  - local\n  - name: u\n    base_url: http://h/v1\n    api_key: ${MISSING}\ntools:\n  - name: [t]\n    webhook: {url: \"http://h/\"}\n"
	want := []string{
		`t.yaml:2:5: upstreams[0]: want a mapping of keys, got a scalar`,
		`t.yaml:5:14: upstreams[1].api_key: environment variable MISSING is not set (use ${MISSING:-} to allow empty)`,
		`t.yaml:7:5: tools[0].name: want a string, got a list`,
	}
	if diff := cmp.Diff(want, problems(t, src, nil)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestDecodeAliasBomb: anchors that multiply into billions of nodes are
// cut off with one problem instead of exhausting time and memory. The
// leaf is long so that the budget (nodes and bytes) runs out quickly.
func TestDecodeAliasBomb(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("tools:\n  - &t\n    name: t\n    webhook: {url: \"http://h/\"}\n")
	b.WriteString("    parameters:\n      type: object\n      $defs:\n")
	b.WriteString("        l0: &l0 " + strings.Repeat("x", 4096) + "\n")
	for i := 1; i < 9; i++ {
		prev := "*l" + strconv.Itoa(i-1)
		fmt.Fprintf(&b, "        l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(prev+", ", 10), ", "))
	}
	// The same bomb under many tools must not multiply the work either.
	b.WriteString("  - *t\n  - *t\n")
	got := problems(t, b.String(), nil)
	want := []string{`t.yaml: too large once aliases are expanded (over 4194304 nodes and bytes); use fewer aliases`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestDecodeRecursiveAlias: an alias inside the node it names would nest
// forever; it is reported once, at the depth limit.
func TestDecodeRecursiveAlias(t *testing.T) {
	t.Parallel()
	src := tool + "    parameters: &p {type: object, a: *p, b: *p}\n"
	got := problems(t, src, nil)
	if len(got) != 1 || !strings.Contains(got[0], "tools[0].parameters.a.a.a.") ||
		!strings.HasSuffix(got[0], "nested deeper than 64 levels (is an alias used inside the node it names?)") {
		t.Errorf("problems = %q, want one about nesting", got)
	}
}

// TestDecodeTooManyProblems: a run stops after 1000 problems and says so.
func TestDecodeTooManyProblems(t *testing.T) {
	t.Parallel()
	got := problems(t, strings.Repeat("k: 1\n", 2000), nil)
	if len(got) != 1001 || got[0] != "t.yaml: stopped after 1000 problems; fix these first" {
		t.Errorf("got %d problems starting %q, want 1001 starting with the stop note", len(got), got[0])
	}
}
