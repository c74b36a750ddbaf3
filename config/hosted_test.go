package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
)

// hostedTool is a tools entry named search_web taking params.
func hostedTool(params string) string {
	return "tools:\n  - name: search_web\n    webhook: {url: \"http://h/s\"}\n    parameters: " + params + "\n"
}

// TestValidateHosted breaks each hosted_tools rule once and pins the
// message and its line:col.
func TestValidateHosted(t *testing.T) {
	t.Parallel()
	const takesQuery = `{type: object, properties: {query: {type: string}}, required: [query]}`
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"unknown kind", hostedTool(takesQuery) + "hosted_tools:\n  image_generation: search_web\n", []string{
			`t.yaml:6:21: hosted_tools.image_generation: unknown hosted tool kind "image_generation" (want one of web_search, web_fetch)`}},
		{"empty name", hostedTool(takesQuery) + "hosted_tools:\n  web_search: \"\"\n", []string{
			`t.yaml:6:15: hosted_tools.web_search: required (the server tool that runs for web_search, e.g. search_web)`}},
		{"bad name", hostedTool(takesQuery) + "hosted_tools:\n  web_search: a b\n", []string{
			`t.yaml:6:15: hosted_tools.web_search: "a b" must be 1 to 64 letters, digits, '_' or '-' (OpenAI's rule for function names)`}},
		{"no query", hostedTool(`{type: object, properties: {q: {type: string}}}`) + "hosted_tools:\n  web_search: search_web\n", []string{
			`t.yaml:6:15: hosted_tools.web_search: tool "search_web" cannot run for web_search: its parameters must declare "query" (a string), the one argument a web_search call carries (tools[0].parameters)`}},
		{"query not a string", hostedTool(`{type: object, properties: {query: {type: integer}}}`) + "hosted_tools:\n  web_search: search_web\n", []string{
			`t.yaml:6:15: hosted_tools.web_search: tool "search_web" cannot run for web_search: its parameter "query" must be a string, not "integer" (tools[0].parameters)`}},
		{"requires more", hostedTool(`{type: object, properties: {query: {type: string}, n: {type: integer}}, required: [query, n]}`) + "hosted_tools:\n  web_search: search_web\n", []string{
			`t.yaml:6:15: hosted_tools.web_search: tool "search_web" cannot run for web_search: it requires "n", which a web_search call never carries (it has only "query") (tools[0].parameters)`}},
		{"fetch needs url", hostedTool(takesQuery) + "hosted_tools:\n  web_fetch: search_web\n", []string{
			`t.yaml:6:14: hosted_tools.web_fetch: tool "search_web" cannot run for web_fetch: its parameters must declare "url" (a string), the one argument a web_fetch call carries (tools[0].parameters)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, problems(t, tc.src, nil)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHostedAccepts: a file tool that takes the kind's argument loads
// with no warning; a name no file tool has loads with a warning, since
// an MCP server or the admin API may supply it.
func TestHostedAccepts(t *testing.T) {
	t.Parallel()
	src := hostedTool(`{type: object, properties: {query: {type: string, description: words}, max: {type: integer}}, required: [query]}`) +
		"  - name: fetch_page\n    webhook: {url: \"http://h/f\"}\n    parameters: {type: object, properties: {url: {type: [string, \"null\"]}}}\n" +
		"hosted_tools:\n  web_search: search_web\n  web_fetch: fetch_page\n"
	cfg := mustParse(t, src, nil)
	if want := map[string]string{"web_search": "search_web", "web_fetch": "fetch_page"}; !cmp.Equal(cfg.HostedTools, want) {
		t.Errorf("HostedTools = %v, want %v", cfg.HostedTools, want)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings: %v", cfg.Warnings)
	}
	cfg = mustParse(t, "hosted_tools:\n  web_search: notes_search\n", nil)
	var got []string
	for _, w := range cfg.Warnings {
		got = append(got, w.String())
	}
	want := []string{`t.yaml:2:15: warning: hosted_tools.web_search: "notes_search" is not a tool of this file; web_search runs only once an MCP server or the admin API supplies a tool of that name (until then a client's web_search is left out)`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestCheckHostedSchema covers the schemas an MCP or runtime tool may
// bring, checked when a client offers the kind.
func TestCheckHostedSchema(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind, params string
		ok           bool
	}{
		{"web_search", `{"type":"object","properties":{"query":{"type":"string"}}}`, true},
		{"web_search", `{"type":"object","properties":{"query":{}}}`, true},
		{"web_search", `{"type":"object","properties":{}}`, false},
		{"web_search", ``, false},
		{"web_search", `[1]`, false},
		{"web_fetch", `{"properties":{"url":{"type":"string"}},"required":["url"]}`, true},
		{"web_fetch", `{"properties":{"url":{"type":"string"}},"required":["url","mode"]}`, false},
	} {
		if got := config.CheckHostedSchema(tc.kind, []byte(tc.params)) == ""; got != tc.ok {
			t.Errorf("CheckHostedSchema(%s, %s) ok = %v, want %v", tc.kind, tc.params, got, tc.ok)
		}
	}
}
