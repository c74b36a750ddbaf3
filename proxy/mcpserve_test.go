package proxy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/toolhost/store"
)

// mcpConfig has a plain key, an app key scoped to some of the tools, an
// admin key, and webhook tools: one plain, one with a typed argument,
// one that needs approval, one the app key may not use.
func mcpConfig() string {
	return `auth:
  keys:
    - ` + plainKey + `
    - name: app
      key: ` + appKey + `
      tools: [create_task, approve_task, slow_task]
  admin_keys: ["` + keysAdmin + `"]
  webhook_allow: ["127.0.0.1"]
loop:
  keepalive: 0s
upstreams:
  - name: up
    base_url: ${UPSTREAM}
    models: ["*"]
tools:
  - name: create_task
    description: Creates a task.
    parameters: {type: object, properties: {title: {type: string}, count: {type: integer}}, required: [title]}
    webhook: {url: "${WEBHOOK}/create_task"}
  - name: approve_task
    parameters: {type: object, properties: {id: {type: string}}}
    approval: always
    webhook: {url: "${WEBHOOK}/approve_task"}
  - name: slow_task
    webhook: {url: "${WEBHOOK}/slow_task"}
  - name: delete_task
    parameters: {type: object, properties: {id: {type: string}}}
    webhook: {url: "${WEBHOOK}/delete_task"}
`
}

// bearer adds a client key to every request of an MCP client.
type bearer struct {
	key  string
	base http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.base.RoundTrip(r)
}

// mcpConnect opens an MCP session to the proxy's /mcp with key, at
// protocol version (2026-07-28: stateless requests; older: a session; "":
// the SDK's newest), and checks the SDK settled on that version rather
// than falling back.
func mcpConnect(t *testing.T, e *turnEnv, key, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, opts)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: e.srv.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{key, tr}},
	}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if version == "" {
		version = "2026-07-28" // the SDK's newest
	}
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("connected with protocol %s, want %s", got, version)
	}
	if stateless := cs.ID() == ""; stateless != (version >= "2026-07-28") {
		t.Fatalf("protocol %s: session id %q", version, cs.ID())
	}
	return cs
}

// protocols are the protocol versions every test runs with: the
// stateless revision, and the last one with sessions, which clients such
// as Claude Desktop speak.
var protocols = []string{"2026-07-28", "2025-11-25"}

func sessionToolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func resultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPServeListAndCall: tools/list shows the key's tools with their
// schemas; tools/call runs a webhook tool and puts it in the audit log
// with source mcp and the key's name; bad arguments are an isError
// result; a tool outside the scope gets the SDK's unknown-tool error.
func TestMCPServeListAndCall(t *testing.T) {
	for _, pv := range protocols {
		t.Run("protocol="+pv, func(t *testing.T) {
			e, db := newKeysEnv(t, mcpConfig(), nil, nil)
			all := mcpConnect(t, e, plainKey, pv, nil)
			if got, want := sessionToolNames(t, all), []string{"approve_task", "create_task", "delete_task", "slow_task"}; !slices.Equal(got, want) {
				t.Errorf("plain key lists %v, want %v", got, want)
			}
			cs := mcpConnect(t, e, appKey, pv, nil)
			res, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Tools) != 3 || res.Tools[1].Name != "create_task" || res.Tools[1].Description != "Creates a task." {
				t.Fatalf("app key lists %v", sessionToolNames(t, cs))
			}
			schema, _ := json.Marshal(res.Tools[1].InputSchema)
			if !strings.Contains(string(schema), `"count":{"type":"integer"}`) {
				t.Errorf("inputSchema %s", schema)
			}

			out, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_task", Arguments: map[string]any{"title": "milk", "count": "2"}})
			if err != nil {
				t.Fatal(err)
			}
			if out.IsError || !strings.Contains(resultText(out), `"ok":true`) || !strings.Contains(resultText(out), `"count":2`) {
				t.Errorf("call result %+v %s", out, resultText(out))
			}
			if hooks := e.hooks.received(); len(hooks) != 1 || hooks[0].Tool != "create_task" {
				t.Errorf("webhook got %+v", hooks)
			}
			recs, _, err := db.Calls(t.Context(), store.CallQuery{})
			if err != nil || len(recs) != 1 {
				t.Fatalf("audit: %v %+v", err, recs)
			}
			if r := recs[0]; r.Source != "mcp" || r.KeyID != "app" || r.Status != store.StatusOK || r.Tool != "create_task" {
				t.Errorf("audit record %+v", r)
			}

			out, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_task", Arguments: map[string]any{"title": "milk", "count": "many"}})
			if err != nil {
				t.Fatalf("bad arguments are a protocol error: %v", err)
			}
			if !out.IsError || !strings.Contains(resultText(out), "INVALID_PARAMETER") {
				t.Errorf("bad arguments: %+v %s", out, resultText(out))
			}

			_, errScope := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_task", Arguments: map[string]any{}})
			_, errNone := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
			if errScope == nil || errNone == nil {
				t.Fatalf("unknown tools: %v, %v", errScope, errNone)
			}
			if a, b := strings.ReplaceAll(errScope.Error(), "delete_task", "X"), strings.ReplaceAll(errNone.Error(), "no_such_tool", "X"); a != b {
				t.Errorf("an out-of-scope tool's error %q differs from an unknown tool's %q", a, b)
			}
			if hooks := e.hooks.received(); len(hooks) != 1 {
				t.Errorf("webhook got %+v", hooks)
			}
		})
	}
}

// TestMCPServeApproval: a call that needs approval waits, sending
// progress to a client that asked for it, until /v1/actions approves it.
func TestMCPServeApproval(t *testing.T) {
	for _, pv := range protocols {
		t.Run("protocol="+pv, func(t *testing.T) {
			e, db := newKeysEnv(t, mcpConfig(), nil, nil)
			progress := make(chan string, 10)
			cs := mcpConnect(t, e, appKey, pv, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
					select {
					case progress <- r.Params.Message:
					default:
					}
				},
			})
			type outcome struct {
				res *mcp.CallToolResult
				err error
			}
			done := make(chan outcome, 1)
			go func() {
				p := &mcp.CallToolParams{Name: "approve_task", Arguments: map[string]any{"id": "7"}}
				p.SetProgressToken("tok-1")
				res, err := cs.CallTool(t.Context(), p)
				done <- outcome{res, err}
			}()
			select {
			case msg := <-progress:
				if !strings.Contains(msg, "waiting for approval of approve_task") {
					t.Errorf("progress message %q", msg)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no progress while the call waits")
			}
			actions := pendingActions(t, e, db)
			if len(actions) != 1 || actions[0].Tool != "approve_task" {
				t.Fatalf("pending actions %+v", actions)
			}
			if len(e.hooks.received()) != 0 {
				t.Fatal("the tool ran before it was approved")
			}
			resp := e.do(t, http.MethodPost, "/v1/actions/"+actions[0].ID+"/approve", "", "Authorization: Bearer "+appKey)
			if body := readAll(t, resp); resp.StatusCode != http.StatusOK {
				t.Fatalf("approve: %d %s", resp.StatusCode, body)
			}
			select {
			case o := <-done:
				if o.err != nil || o.res.IsError {
					t.Fatalf("approved call: %v %+v", o.err, o.res)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the approved call did not finish")
			}
			if hooks := e.hooks.received(); len(hooks) != 1 || hooks[0].Tool != "approve_task" {
				t.Errorf("webhook got %+v", hooks)
			}
		})
	}
}

// pendingActions reads the actions waiting for a decision, from storage.
func pendingActions(t *testing.T, _ *turnEnv, db store.Store) []store.Action {
	t.Helper()
	list, err := db.Actions(t.Context(), store.ActionQuery{All: true, Status: store.ActionPending})
	if err != nil {
		t.Fatal(err)
	}
	return list
}
