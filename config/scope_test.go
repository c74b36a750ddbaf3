package config_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
)

// TestUnknownTools: a scope entry is reported only when it matches no
// known tool and could match no tool an MCP server adds under its
// prefix; a likely typo names the tool meant.
func TestUnknownTools(t *testing.T) {
	t.Parallel()
	known := []string{"read_tasks", "create_task", "delete_task"}
	for _, tc := range []struct {
		name            string
		scope, prefixes []string
		want            []config.UnknownTool
	}{
		{"all known", []string{"read_tasks", "create_*"}, nil, nil},
		{"a typo", []string{"read_tasks", "read_task"}, nil, []config.UnknownTool{{Index: 1, Entry: "read_task", Meant: "read_tasks"}}},
		{"nothing near", []string{"list_cards"}, nil, []config.UnknownTool{{Entry: "list_cards"}}},
		{"a glob matching nothing", []string{"kanban_*"}, nil, []config.UnknownTool{{Entry: "kanban_*"}}},
		{"an MCP server's prefix, literal", []string{"gh_create_issue"}, []string{"gh_"}, nil},
		{"an MCP server's prefix, glob", []string{"gh*"}, []string{"gh_"}, nil},
		{"a glob wider than the prefix", []string{"*"}, []string{"gh_"}, nil},
		{"another prefix", []string{"jira_x", "gh"}, []string{"gh_"}, []config.UnknownTool{{Entry: "jira_x"}, {Index: 1, Entry: "gh"}}},
		{"an MCP server without a prefix", []string{"anything"}, []string{""}, nil},
		{"empty scope", []string{}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, config.UnknownTools(tc.scope, known, tc.prefixes)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestScopeWarnings: check warns, at the entry's line, of a key's tools
// entry no tool of the file or MCP server could match; the config still
// loads.
func TestScopeWarnings(t *testing.T) {
	t.Parallel()
	src := up + `auth:
  keys:
    - sk-plain
    - name: app
      key: sk-app
      tools: [read_tasks, list_tasks, gh_*, read_task]
tools:
  - name: read_tasks
    webhook: {url: "http://127.0.0.1:9/read"}
mcp_servers:
  - name: gh
    url: http://127.0.0.1:9/mcp
    prefix: gh_
`
	cfg := mustParse(t, src, nil)
	var got []string
	for _, w := range cfg.Warnings {
		got = append(got, w.String())
	}
	want := []string{`t.yaml:9:27: warning: auth.keys[1].tools[1]: "list_tasks" matches no server tool (until a tool of that name exists, the key's turns cannot call it)`,
		`t.yaml:9:45: warning: auth.keys[1].tools[3]: "read_task" matches no server tool; did you mean "read_tasks"? (until a tool of that name exists, the key's turns cannot call it)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestScopeWarningsOpenAPI: a scope entry an OpenAPI document's tools
// could match (by its entry's prefix) is no warning: those tools are
// known once the document is read.
func TestScopeWarningsOpenAPI(t *testing.T) {
	t.Parallel()
	src := up + `auth:
  keys:
    - name: app
      key: sk-app
      tools: [contacts_listContacts, contacts_*, nope]
openapi_tools:
  - name: contacts
    spec: contacts.yaml
    base_url: http://127.0.0.1:9
`
	cfg := mustParse(t, src, nil)
	var got []string
	for _, w := range cfg.Warnings {
		got = append(got, w.String())
	}
	if len(got) != 1 || !strings.Contains(got[0], `"nope" matches no server tool`) {
		t.Errorf("warnings = %q, want only nope's", got)
	}
}
