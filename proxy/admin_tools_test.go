package proxy_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost"
)

const (
	clientKey = "client-key"
	adminKey  = "admin-key"
)

// adminConfig has a client key, two admin keys (one as its SHA-256), a
// config tool and webhook_allow for the loopback webhook server.
func adminConfig() string {
	return `auth:
  keys: ["` + clientKey + `"]
  admin_keys: ["other-admin", "sha256:` + sha256hex(adminKey) + `"]
  webhook_allow: ["127.0.0.1"]
loop:
  keepalive: 0s
` + textUpstream + `tools:
  - name: create_task
    description: Creates a task.
    webhook: {url: "${WEBHOOK}/create_task"}
`
}

// newAdminEnv serves the proxy with the real toolhost as its tools and
// runtime tools.
func newAdminEnv(t *testing.T, yaml string, rounds ...upstreamtest.Round) *turnEnv {
	t.Helper()
	p := newParts(t, yaml, rounds)
	host := p.host(t, toolhost.Options{})
	return p.serve(t, proxy.Options{Tools: host, RuntimeTools: host})
}

// apiErr is the OpenAI error body.
type apiErr struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

// wantError checks a response is an OpenAI-shaped error with status and
// code, and returns it.
func wantError(t *testing.T, resp *http.Response, status int, code string) apiErr {
	t.Helper()
	body := readAll(t, resp)
	var e apiErr
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	if resp.StatusCode != status || e.Error.Code == nil || *e.Error.Code != code {
		t.Fatalf("got %d %s, want %d with code %s", resp.StatusCode, body, status, code)
	}
	return e
}

func TestAdminAuth(t *testing.T) {
	e := newAdminEnv(t, adminConfig())
	for _, tc := range []struct {
		name   string
		header []string
		status int
		code   string
	}{
		{"no key", nil, http.StatusUnauthorized, "invalid_api_key"},
		{"wrong key", []string{"Authorization: Bearer nope"}, http.StatusUnauthorized, "invalid_api_key"},
		{"client key", []string{"Authorization: Bearer " + clientKey}, http.StatusForbidden, "admin_key_required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, e.do(t, http.MethodGet, "/admin/tools", "", tc.header...), tc.status, tc.code)
		})
	}
	// Both forms of admin key, and the api-key header.
	for _, h := range []string{"Authorization: Bearer other-admin", "Authorization: Bearer " + adminKey, "api-key: " + adminKey} {
		if resp := e.do(t, http.MethodGet, "/admin/tools", "", h); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d %s", h, resp.StatusCode, readAll(t, resp))
		} else {
			readAll(t, resp)
		}
	}
	// An admin key is not a client key.
	wantError(t, e.do(t, http.MethodGet, "/v1/models", "", "Authorization: Bearer "+adminKey), http.StatusUnauthorized, "invalid_api_key")
}

// TestAdminDisabled: without admin keys every /admin route is 403, known
// or not, whatever key is sent.
func TestAdminDisabled(t *testing.T) {
	e := newAdminEnv(t, strings.Replace(adminConfig(), "admin_keys:", "admin_keys: []\n  #", 1))
	for _, path := range []string{"/admin/tools", "/admin/tools/create_task", "/admin/calls"} {
		er := wantError(t, e.do(t, http.MethodGet, path, "", "Authorization: Bearer "+adminKey), http.StatusForbidden, "admin_disabled")
		if !strings.Contains(er.Error.Message, "no admin keys are configured (auth.admin_keys)") || er.Error.Type != "permission_error" {
			t.Errorf("%s: %+v", path, er.Error)
		}
	}
}

// toolJSON is a tool as the admin API shows it.
type toolJSON struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Approval    string          `json:"approval"`
	Idempotent  bool            `json:"idempotent"`
	Source      string          `json:"source"`
	Webhook     *struct {
		URL     string   `json:"url"`
		Headers []string `json:"headers"`
		Secret  string   `json:"secret"`
		Timeout string   `json:"timeout"`
	} `json:"webhook"`
	MaxResultBytes string `json:"max_result_bytes"`
}

func decodeJSON[T any](t *testing.T, resp *http.Response, status int) T {
	t.Helper()
	body := readAll(t, resp)
	if resp.StatusCode != status {
		t.Fatalf("got %d %s, want %d", resp.StatusCode, body, status)
	}
	var v T
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return v
}

func TestAdminTools(t *testing.T) {
	e := newAdminEnv(t, adminConfig())
	admin := "Authorization: Bearer " + adminKey
	url := e.hooks.srv.URL + "/lookup"
	spec := `{"name":"lookup","description":"Looks a word up.",
		"parameters":{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]},
		"webhook":{"url":"` + url + `","headers":{"Authorization":"Bearer hook-token"},"secret":"whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=","timeout":"5s"},
		"idempotent":true,"max_result_bytes":"8KiB"}`

	created := decodeJSON[toolJSON](t, e.do(t, http.MethodPost, "/admin/tools", spec, admin), http.StatusCreated)
	if created.Name != "lookup" || created.Source != "runtime" || created.Webhook == nil || created.Webhook.Secret != "[redacted]" {
		t.Errorf("created %+v", created)
	}

	resp := e.do(t, http.MethodGet, "/admin/tools", "", admin)
	raw := readAll(t, resp)
	for _, secret := range []string{"hook-token", "whsec_"} {
		if strings.Contains(raw, secret) {
			t.Errorf("the list shows a secret (%s): %s", secret, raw)
		}
	}
	var list struct {
		Object string     `json:"object"`
		Data   []toolJSON `json:"data"`
	}
	if err := json.Unmarshal([]byte(raw), &list); err != nil {
		t.Fatal(err)
	}
	want := []toolJSON{
		{Name: "create_task", Description: "Creates a task.", Parameters: json.RawMessage(`{"type":"object","properties":{}}`),
			Approval: "never", Source: "config"},
		{Name: "lookup", Description: "Looks a word up.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}`),
			Approval:   "never", Idempotent: true, Source: "runtime", MaxResultBytes: "8KiB"},
	}
	want[1].Webhook = created.Webhook
	if diff := cmp.Diff(want, list.Data); list.Object != "list" || diff != "" {
		t.Errorf("list %q (-want +got):\n%s", list.Object, diff)
	}
	if w := created.Webhook; w.URL != url || !cmp.Equal(w.Headers, []string{"Authorization"}) || w.Timeout != "5s" {
		t.Errorf("webhook view %+v", w)
	}

	one := decodeJSON[toolJSON](t, e.do(t, http.MethodGet, "/admin/tools/create_task", "", admin), http.StatusOK)
	if one.Source != "config" || one.Webhook != nil {
		t.Errorf("GET create_task: %+v (a config tool's webhook is not shown)", one)
	}

	// Create over an existing name, runtime or config: 409.
	wantError(t, e.do(t, http.MethodPost, "/admin/tools", spec, admin), http.StatusConflict, "tool_exists")
	wantError(t, e.do(t, http.MethodPost, "/admin/tools", `{"name":"create_task","webhook":{"url":"`+url+`"}}`, admin), http.StatusConflict, "tool_exists")

	// PUT replaces a runtime tool (200) or creates one (201), name from the URL.
	replaced := decodeJSON[toolJSON](t, e.do(t, http.MethodPut, "/admin/tools/lookup", `{"description":"v2","webhook":{"url":"`+url+`"}}`, admin), http.StatusOK)
	if replaced.Description != "v2" || replaced.Webhook.Secret != "" || replaced.Webhook.Timeout != "" {
		t.Errorf("replaced %+v", replaced)
	}
	decodeJSON[toolJSON](t, e.do(t, http.MethodPut, "/admin/tools/define", `{"name":"define","webhook":{"url":"`+url+`"}}`, admin), http.StatusCreated)

	// Config tools are read-only.
	for _, method := range []string{http.MethodPut, http.MethodDelete} {
		er := wantError(t, e.do(t, method, "/admin/tools/create_task", `{"webhook":{"url":"`+url+`"}}`, admin), http.StatusConflict, "tool_read_only")
		if !strings.Contains(er.Error.Message, "config tools are read-only: edit the config file and reload") {
			t.Errorf("%s create_task: %q", method, er.Error.Message)
		}
	}

	if resp := e.do(t, http.MethodDelete, "/admin/tools/lookup", "", admin); resp.StatusCode != http.StatusNoContent {
		t.Errorf("delete: %d %s", resp.StatusCode, readAll(t, resp))
	} else {
		readAll(t, resp)
	}
	wantError(t, e.do(t, http.MethodGet, "/admin/tools/lookup", "", admin), http.StatusNotFound, "tool_not_found")
	wantError(t, e.do(t, http.MethodDelete, "/admin/tools/lookup", "", admin), http.StatusNotFound, "tool_not_found")
}

// TestAdminToolsBadSpec: a spec the rules refuse is a 400 whose param and
// message name the field.
func TestAdminToolsBadSpec(t *testing.T) {
	e := newAdminEnv(t, adminConfig())
	admin := "Authorization: Bearer " + adminKey
	url := e.hooks.srv.URL + "/t"
	for _, tc := range []struct {
		name, method, path, body string
		param, message           string
	}{
		{"unknown field", http.MethodPost, "/admin/tools", `{"name":"t","descripton":"x","webhook":{"url":"` + url + `"}}`,
			"descripton", "descripton: unknown field (did you mean description?)"},
		{"not JSON", http.MethodPost, "/admin/tools", `name=t`, "", "not valid JSON: invalid character 'a' in literal null (expecting 'u')"},
		{"name mismatch", http.MethodPut, "/admin/tools/t", `{"name":"u","webhook":{"url":"` + url + `"}}`,
			"name", `name: "u" does not match the name in the URL ("t"); leave it out or make them equal`},
		{"host not allowed", http.MethodPost, "/admin/tools", `{"name":"t","webhook":{"url":"https://hooks.example.com/t"}}`,
			"webhook.url", `webhook.url: host "hooks.example.com" is not allowed by auth.webhook_allow (add it, or a glob matching it, to the config file)`},
		{"bad timeout", http.MethodPost, "/admin/tools", `{"name":"t","webhook":{"url":"` + url + `","timeout":30}}`,
			"webhook.timeout", `webhook.timeout: duration "30" has no unit (write 30s, 30m or 30h)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			er := wantError(t, e.do(t, tc.method, tc.path, tc.body, admin), http.StatusBadRequest, "invalid_tool")
			param := ""
			if er.Error.Param != nil {
				param = *er.Error.Param
			}
			if param != tc.param || er.Error.Message != tc.message || er.Error.Type != "invalid_request_error" {
				t.Errorf("got param %q message %q type %q, want param %q message %q", param, er.Error.Message, er.Error.Type, tc.param, tc.message)
			}
		})
	}
}

// TestRuntimeToolNextTurn: a tool registered through the admin API is
// offered and run in the next turn.
func TestRuntimeToolNextTurn(t *testing.T) {
	r1 := upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "Looking. ", call("lookup", `{"word":"hello"}`))}
	e := newAdminEnv(t, adminConfig(), r1, textRound("c2", "It is a greeting."))
	spec := `{"name":"lookup","description":"Looks a word up.","webhook":{"url":"` + e.hooks.srv.URL + `/lookup"}}`
	decodeJSON[toolJSON](t, e.do(t, http.MethodPost, "/admin/tools", spec, "Authorization: Bearer "+adminKey), http.StatusCreated)

	body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest, "Authorization: Bearer "+clientKey))
	if !strings.Contains(body, "It is a greeting.") {
		t.Errorf("the turn did not finish: %s", body)
	}
	calls := e.hooks.received()
	if len(calls) != 1 || calls[0].Tool != "lookup" {
		t.Fatalf("webhook calls %+v, want one to lookup", calls)
	}
	if args, _ := json.Marshal(calls[0].Body["arguments"]); string(args) != `{"word":"hello"}` {
		t.Errorf("arguments %s", args)
	}
	reqs := e.up.Requests()
	if len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), "lookup") {
		t.Errorf("the first round did not teach the runtime tool")
	}
}
