package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
)

// TestValidateOpenAPI breaks each openapi_tools rule once and pins the
// message and its line:col.
func TestValidateOpenAPI(t *testing.T) {
	t.Parallel()
	const src = "openapi_tools:\n  - name: crm\n"
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"no spec", src, []string{
			`t.yaml:2:5: openapi_tools[0].spec: required (a file like ./crm-openapi.yaml, or an http(s) URL)`}},
		{"spec URL scheme", src + "    spec: ftp://h/openapi.yaml\n", []string{
			`t.yaml:3:11: openapi_tools[0].spec: "ftp://h/openapi.yaml" must start with http:// or https://`}},
		{"base_url", src + "    spec: a.yaml\n    base_url: crm.internal\n", []string{
			`t.yaml:4:15: openapi_tools[0].base_url: "crm.internal" must start with http:// or https://`}},
		{"name", "openapi_tools:\n  - {name: a b, spec: a.yaml}\n  - {spec: b.yaml}\n", []string{
			`t.yaml:2:12: openapi_tools[0].name: "a b" must be 1–64 letters, digits, '_' or '-'`,
			`t.yaml:3:5: openapi_tools[1].name: required (a name for logs and the tools' source, e.g. crm)`}},
		{"duplicate name", "openapi_tools:\n  - {name: s, spec: a.yaml}\n  - {name: s, spec: b.yaml}\n", []string{
			`t.yaml:3:12: openapi_tools[1].name: duplicate name "s" (first used by openapi_tools[0] at line 2)`}},
		{"globs, prefix, timeout, approval, headers", src + "    spec: a.yaml\n    operations: [\"a[\"]\n    prefix: \"a.b\"\n    timeout: -1s\n    approval: sometimes\n    headers: {\"a b\": x}\n", []string{
			`t.yaml:4:18: openapi_tools[0].operations[0]: bad pattern "a[" (path.Match syntax: * any run, ? one character, [a-z] a class, \ escapes)`,
			`t.yaml:5:13: openapi_tools[0].prefix: "a.b" must be 1–32 letters, digits, '_' or '-', so that prefixed names stay tool names`,
			`t.yaml:6:14: openapi_tools[0].timeout: must be positive, got -1s (leave it out to use loop.tool_timeout)`,
			`t.yaml:7:15: openapi_tools[0].approval: unknown value "sometimes" (want never, always or admin)`,
			`t.yaml:8:22: openapi_tools[0].headers.a b: "a b" is not a valid header name`}},
		{"override", src + "    spec: a.yaml\n    overrides:\n      crm_x: {approval: admin}\n", []string{
			`t.yaml:5:25: openapi_tools[0].overrides.crm_x.approval: admin needs auth.admin_keys: without an admin key nobody could approve its calls`}},
		{"misspelt key", src + "    spec: a.yaml\n    operation: [\"*\"]\n", []string{
			`t.yaml:4:5: openapi_tools[0].operation: unknown key (did you mean operations?)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, problems(t, tc.src, nil)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOpenAPIDefaultsAndPrefix: an entry left mostly out gets every
// operation, approval never and the name as prefix; prefix "" means none.
func TestOpenAPIDefaultsAndPrefix(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, "openapi_tools:\n  - {name: crm, spec: ./crm.yaml}\n  - {name: pets, spec: \"https://h/o.json\", prefix: \"\"}\n  - {name: x, spec: x.yaml, prefix: y_}\n", nil)
	o := cfg.OpenAPITools
	if diff := cmp.Diff([]string{"*"}, o[0].Operations); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
	if o[0].Approval != "never" {
		t.Errorf("approval = %q, want never", o[0].Approval)
	}
	for i, want := range []string{"crm_", "", "y_"} {
		if got := o[i].ToolPrefix(); got != want {
			t.Errorf("entry %d: prefix %q, want %q", i, got, want)
		}
	}
}

// TestProblemAt places a problem found outside the package at the key the
// file writes, or its nearest written ancestor.
func TestProblemAt(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, "listen: 127.0.0.1:1\nopenapi_tools:\n  - name: crm\n    spec: ./crm.yaml\n", nil)
	for path, want := range map[string]string{
		"openapi_tools[0].spec":     "t.yaml:4:11: openapi_tools[0].spec: bad",
		"openapi_tools[0].base_url": "t.yaml:3:5: openapi_tools[0].base_url: bad",
	} {
		if got := cfg.ProblemAt(path, "bad").String(); got != want {
			t.Errorf("ProblemAt(%s) = %q, want %q", path, got, want)
		}
	}
	var built config.Config
	if got := built.ProblemAt("openapi_tools[0]", "bad").String(); got != "openapi_tools[0]: bad" {
		t.Errorf("config built in code: %q", got)
	}
}
