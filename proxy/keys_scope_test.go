package proxy_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// newKeysEnv is a turn env wired as serve wires it: one store for the
// audit log, approvals, stored responses and runtime keys. db, when not
// nil, is that store (a test that restarts keeps it); log, when not nil,
// receives the proxy's and the tool host's log lines.
func newKeysEnv(t *testing.T, yaml string, log slog.Handler, rounds []upstreamtest.Round, db ...store.Store) (*turnEnv, store.Store) {
	t.Helper()
	p := newParts(t, yaml, rounds)
	var st store.Store
	if len(db) > 0 {
		st = db[0]
	} else {
		st = openStore(t, config.Storage{InMemory: true}, badger.Options{})
	}
	logger := slog.New(slog.DiscardHandler)
	if log != nil {
		logger = slog.New(log)
	}
	w := wired(t, st)
	host := p.host(t, w.Host(toolhost.Options{Logger: logger}))
	return p.serve(t, w.Proxy(proxy.Options{Logger: logger}, host, nil)), st
}

const (
	appKey    = "sk-app-key"
	readerKey = "sk-reader-key"
	plainKey  = "sk-plain-key"
	keysAdmin = "sk-keys-admin"
)

// scopedConfig has two webhook tools, a plain key, an app key limited to
// create_task and to the models "m" and "fast", and a key without server
// tools.
func scopedConfig(extraKeys string) string {
	return `auth:
  keys:
    - ` + plainKey + `
    - name: app
      key: ` + appKey + `
      models: ["m", "fast"]
      tools: [create_task]
    - name: reader
      key: ` + readerKey + `
      tools: []
` + extraKeys + `  admin_keys: ["` + keysAdmin + `"]
loop:
  keepalive: 0s
upstreams:
  - name: up
    base_url: ${UPSTREAM}
    models: ["*", {name: fast, model: m}]
    tool_mode: text
    text_format: hermes
tools:
  - name: create_task
    parameters: {type: object, properties: {title: {type: string}}}
    webhook: {url: "${WEBHOOK}/create_task"}
  - name: delete_task
    parameters: {type: object, properties: {id: {type: string}}}
    webhook: {url: "${WEBHOOK}/delete_task"}
`
}

// routeCase is one protocol route's request for a turn.
type routeCase struct {
	name, path, body string
	stream           bool
}

func routeCases(model string) []routeCase {
	msgs := `[{"role":"user","content":"go"}]`
	return []routeCase{
		{"chat stream", "/v1/chat/completions", `{"model":"` + model + `","stream":true,"messages":` + msgs + `}`, true},
		{"chat", "/v1/chat/completions", `{"model":"` + model + `","messages":` + msgs + `}`, false},
		{"responses stream", "/v1/responses", `{"model":"` + model + `","stream":true,"input":"go"}`, true},
		{"responses", "/v1/responses", `{"model":"` + model + `","input":"go"}`, false},
		{"messages stream", "/v1/messages", `{"model":"` + model + `","max_tokens":64,"stream":true,"messages":` + msgs + `}`, true},
		{"messages", "/v1/messages", `{"model":"` + model + `","max_tokens":64,"messages":` + msgs + `}`, false},
	}
}

// TestKeyModelScope: a model outside the key's scope is refused with 403
// model_not_allowed on every route, streamed or not, before anything
// reaches the upstream; an alias is judged by its own name, and
// /v1/models lists only the key's models.
func TestKeyModelScope(t *testing.T) {
	e, _ := newKeysEnv(t, scopedConfig(""), nil, nil)
	for _, rc := range routeCases("gpt-4o") {
		t.Run(rc.name, func(t *testing.T) {
			resp := e.do(t, http.MethodPost, rc.path, rc.body, "Authorization: Bearer "+appKey)
			body := readAll(t, resp)
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("status %d, want 403: %s", resp.StatusCode, body)
			}
			if rc.path == "/v1/messages" {
				if !strings.Contains(body, `"type":"permission_error"`) {
					t.Errorf("Messages route: not Anthropic's permission_error: %s", body)
				}
			} else if !strings.Contains(body, `"code":"model_not_allowed"`) || !strings.Contains(body, "gpt-4o") {
				t.Errorf("body %s", body)
			}
		})
	}
	if n := len(e.up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests for refused models", n)
	}

	// The alias "fast" is in scope, though the upstream is asked for "m".
	e.up.Add(textRound("c1", "Hi."))
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", `{"model":"fast","messages":[{"role":"user","content":"hi"}]}`, "Authorization: Bearer "+appKey)
	if body := readAll(t, resp); resp.StatusCode != 200 {
		t.Fatalf("alias in scope: %d %s", resp.StatusCode, body)
	}

	e.up.SetModels("m", "gpt-4o", "qwen3")
	for key, want := range map[string][]string{appKey: {"fast", "m"}, plainKey: {"fast", "m", "gpt-4o", "qwen3"}} {
		resp := e.do(t, http.MethodGet, "/v1/models", "", "Authorization: Bearer "+key)
		var list struct{ Data []struct{ ID string } }
		json.Unmarshal([]byte(readAll(t, resp)), &list)
		var got []string
		for _, m := range list.Data {
			got = append(got, m.ID)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("/v1/models for %s: %v, want %v", key, got, want)
		}
	}

	// Pass-through routes keep to the scope too.
	resp = e.do(t, http.MethodPost, "/v1/embeddings", `{"model":"gpt-4o","input":"x"}`, "Authorization: Bearer "+appKey)
	if body := readAll(t, resp); resp.StatusCode != http.StatusForbidden {
		t.Errorf("pass-through with another model: %d %s", resp.StatusCode, body)
	}
}

// TestKeyToolScope: a tool outside the key's scope is not taught, and a
// call of it gets TOOL_NOT_FOUND exactly as for a tool that does not
// exist — the webhook hears nothing — on every route, streamed or not;
// the audit log names the key.
func TestKeyToolScope(t *testing.T) {
	for _, rc := range routeCases("m") {
		t.Run(rc.name, func(t *testing.T) {
			e, db := newKeysEnv(t, scopedConfig(""), nil, []upstreamtest.Round{
				textRound("c1", "Removing it. ", call("delete_task", `{"id":"7"}`)),
				textRound("c2", "It is gone."),
			})
			resp := e.do(t, http.MethodPost, rc.path, rc.body, "Authorization: Bearer "+appKey)
			body := readAll(t, resp)
			if resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			if strings.Contains(body, "tool_call>") {
				t.Errorf("markup reached the client: %s", body)
			}
			if calls := e.hooks.received(); len(calls) != 0 {
				t.Errorf("the webhook was called: %+v", calls)
			}
			reqs := e.up.Requests()
			if len(reqs) != 2 {
				t.Fatalf("upstream got %d requests, want 2", len(reqs))
			}
			first := string(reqs[0].Body)
			if !strings.Contains(first, "create_task") || strings.Contains(first, "delete_task") {
				t.Errorf("round 1 teaches the wrong tools: %s", first)
			}
			if b := string(reqs[1].Body); !strings.Contains(b, `unknown tool`) || !strings.Contains(b, `available tools: create_task`) {
				t.Errorf("round 2 does not tell the model the tool does not exist, naming only the key's tools: %s", b)
			}
			recs, _, err := db.Calls(context.Background(), store.CallQuery{})
			if err != nil || len(recs) != 1 {
				t.Fatalf("audit: %v %+v", err, recs)
			}
			if r := recs[0]; r.Tool != "delete_task" || r.ErrorCode != "TOOL_NOT_FOUND" || r.KeyID != "app" || r.Executed {
				t.Errorf("audit record %+v", r)
			}
			if src, want := recs[0].Source, strings.Fields(rc.name)[0]; src != want {
				t.Errorf("audit source %q, want %q", src, want)
			}
		})
	}
}

// TestKeyToolScopeNoTools: tools: [] makes every turn of the key a plain
// one; a request that picks a tool outside the scope is told there is no
// such tool.
func TestKeyToolScopeNoTools(t *testing.T) {
	e, _ := newKeysEnv(t, scopedConfig(""), nil, []upstreamtest.Round{textRound("c1", "Hello.")})
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest, "Authorization: Bearer "+readerKey)
	if body := readAll(t, resp); resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if b := string(e.up.Requests()[0].Body); strings.Contains(b, "create_task") {
		t.Errorf("a key without tools was taught some: %s", b)
	}
	resp = e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest, "Authorization: Bearer "+appKey, "X-Toolstream-Tools: delete_task")
	if body := readAll(t, resp); resp.StatusCode != 400 || !strings.Contains(body, `\"delete_task\" is not a server tool`) {
		t.Errorf("picking a tool outside the scope: %d %s", resp.StatusCode, body)
	}
}

// TestKeyAdminToolsView: /admin/tools?key=NAME lists the tools that key's
// turns see.
func TestKeyAdminToolsView(t *testing.T) {
	e, _ := newKeysEnv(t, scopedConfig(""), nil, nil)
	for key, want := range map[string]string{"app": "create_task", "reader": "", "": "create_task,delete_task"} {
		path := "/admin/tools"
		if key != "" {
			path += "?key=" + key
		}
		code, out := e.jsonDo(t, http.MethodGet, path, "", keysAdmin)
		var names []string
		for _, d := range out["data"].([]any) {
			names = append(names, d.(map[string]any)["name"].(string))
		}
		if code != 200 || strings.Join(names, ",") != want {
			t.Errorf("%s: %d %v, want %s", path, code, names, want)
		}
	}
	if code, _ := e.jsonDo(t, http.MethodGet, "/admin/tools?key=nobody", "", keysAdmin); code != 404 {
		t.Errorf("an unknown key: %d, want 404", code)
	}
}

// TestKeyNames: the turn's log line, the audit log and the metrics name a
// named key by its name and a plain key by key_ and its hash's prefix,
// never the key.
func TestKeyNames(t *testing.T) {
	var logs lockedBuffer
	e, _ := newKeysEnv(t, scopedConfig(""), slog.NewTextHandler(&logs, nil), []upstreamtest.Round{
		{Events: append(upstreamtest.Text("c1", "m", "Hi."), upstreamtest.Usage("c1", "m", 7, 3))},
		{Events: append(upstreamtest.Text("c2", "m", "Hi."), upstreamtest.Usage("c2", "m", 5, 1))},
	})
	for _, k := range []string{appKey, plainKey} {
		resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody, "Authorization: Bearer "+k)
		readAll(t, resp)
	}
	resp := e.do(t, http.MethodGet, "/metrics", "")
	metrics := readAll(t, resp)
	e.srv.Close() // every handler has logged
	plainName := "key_" + sha256hex(plainKey)[:12]
	for _, want := range []string{
		`toolstream_tokens_total{key="app",kind="prompt",upstream="up"} 7`,
		`toolstream_tokens_total{key="` + plainName + `",kind="completion",upstream="up"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	for _, want := range []string{" key=app ", " key=" + plainName + " "} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
	for _, secret := range []string{appKey, plainKey} {
		if strings.Contains(logs.String()+metrics, secret) {
			t.Errorf("a key leaked into the log or metrics")
		}
	}
}
