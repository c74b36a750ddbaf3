package clients_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestMCPClient runs mcp-client.mjs in both protocol revisions: the
// official MCP TypeScript SDK at its newest against /mcp lists the key's
// tools, calls one, reads isError for bad arguments and the unknown-tool
// error for one outside its scope, waits with progress for an approval
// it then gives through /v1/actions, denies one by declining the
// question the server puts to it (in a session an elicitation request;
// stateless, the call's input_required result), cancels a slow call (the
// webhook sees its request cancelled) and hears list_changed after a
// registration.
func TestMCPClient(t *testing.T) {
	modules := nodeModules(t)
	for _, tc := range []struct{ revision, era string }{
		{"2026-07-28", "modern"},
		{"2025-11-25", "legacy"},
	} {
		t.Run(tc.revision, func(t *testing.T) { mcpClient(t, modules, tc.revision, tc.era) })
	}
}

func mcpClient(t *testing.T, modules, revision, era string) {
	cancelled := make(chan struct{})
	var once sync.Once
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Arguments json.RawMessage `json:"arguments"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		if r.URL.Path == "/slow_task" {
			select {
			case <-r.Context().Done():
				once.Do(func() { close(cancelled) })
			case <-time.After(30 * time.Second):
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true,"arguments":` + string(body.Arguments) + `}`))
	}))
	model := upstreamtest.New()
	yaml := `auth:
  keys:
    - name: app
      key: sk-app-key
      tools: [create_task, approve_task, slow_task, "rt_*"]
  admin_keys: [sk-admin-key]
  webhook_allow: ["127.0.0.1"]
upstreams:
  - name: local
    base_url: ` + model.URL + `
    models: ["*"]
tools:
  - name: create_task
    parameters: {type: object, properties: {title: {type: string}, count: {type: integer}}, required: [title]}
    webhook: {url: "` + hooks.URL + `/create_task"}
  - name: approve_task
    parameters: {type: object, properties: {id: {type: string}}}
    approval: always
    webhook: {url: "` + hooks.URL + `/approve_task"}
  - name: slow_task
    webhook: {url: "` + hooks.URL + `/slow_task"}
  - name: delete_task
    webhook: {url: "` + hooks.URL + `/delete_task"}
`
	t.Cleanup(func() {
		model.Close()
		hooks.CloseClientConnections()
		hooks.Close()
	})
	base := serveYAML(t, yaml)

	out := runNode(t, modules, base, "mcp-client.mjs", "sk-app-key", "sk-admin-key", hooks.URL, revision)
	want := regexp.MustCompile(`(?m)^revision: ` + era + `
tools: approve_task, create_task, slow_task
create_task: isError false · \{"ok":true,"arguments":\{"count":2,"title":"milk"\}\}
bad arguments: isError true · INVALID_PARAMETER
out of scope: error -32602 · unknown tool "delete_task"
progress: waiting for approval of approve_task \(action act_\w+\)
approve: 200
approved call: isError false
elicitation: Allow the tool approve_task to run
declined call: isError true · DENIED
slow call: cancelled
register: 201
list_changed: approve_task, create_task, rt_tool, slow_task$`)
	if !want.MatchString(out) {
		t.Errorf("output does not match\n%s\n--- it is:\n%s", want, out)
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Error("the webhook's request of the cancelled call was not cancelled")
	}
}
