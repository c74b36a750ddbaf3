package proxy_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKeyScopeWarnings: a runtime key whose tools name no server tool is
// created (or changed) all the same, with a warning per such entry in
// the answer, naming the tool likely meant; a scope of known tools, or a
// PATCH that leaves the tools alone, has none.
func TestKeyScopeWarnings(t *testing.T) {
	e, _ := newKeysEnv(t, scopedConfig(""), nil, nil)
	for _, tc := range []struct {
		method, path, body string
		status             int
		want               []any
	}{
		{http.MethodPost, "/admin/keys", `{"name":"ok","tools":["create_task","delete_*"]}`, http.StatusCreated, nil},
		{http.MethodPost, "/admin/keys", `{"name":"typo","tools":["create_tasks","list_tasks"]}`, http.StatusCreated, []any{
			`tools[0]: "create_tasks" matches no server tool; did you mean "create_task"? (until a tool of that name exists, the key's turns cannot call it)`,
			`tools[1]: "list_tasks" matches no server tool (until a tool of that name exists, the key's turns cannot call it)`,
		}},
		{http.MethodPatch, "/admin/keys/ok", `{"tools":["kanban_*"]}`, http.StatusOK, []any{
			`tools[0]: "kanban_*" matches no server tool (until a tool of that name exists, the key's turns cannot call it)`,
		}},
		{http.MethodPatch, "/admin/keys/ok", `{"limits":{"concurrent_turns":2}}`, http.StatusOK, nil},
	} {
		code, out := e.jsonDo(t, tc.method, tc.path, tc.body, keysAdmin)
		got, _ := out["warnings"].([]any)
		if code != tc.status {
			t.Errorf("%s %s: %d %v", tc.method, tc.body, code, out)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s %s: warnings (-want +got):\n%s", tc.method, tc.body, diff)
		}
	}
}

// TestAdminFieldTypos: a misspelt field of an admin body is refused with
// the field likely meant, for keys (nested ones too) and runtime tools;
// none is created.
func TestAdminFieldTypos(t *testing.T) {
	e, _ := newKeysEnv(t, scopedConfig(""), nil, nil)
	if code, out := e.jsonDo(t, http.MethodPost, "/admin/keys", `{"name":"b"}`, keysAdmin); code != http.StatusCreated {
		t.Fatalf("create: %d %v", code, out)
	}
	for _, tc := range []struct {
		method, path, body string
		param, msg         string
	}{
		{http.MethodPost, "/admin/keys", `{"name":"a","tool":["x"]}`, "tool", `unknown field "tool"; did you mean "tools"?`},
		{http.MethodPost, "/admin/keys", `{"name":"a","Tools":["x"]}`, "Tools", `unknown field "Tools"; did you mean "tools"?`},
		{http.MethodPost, "/admin/keys", `{"name":"a","limits":{"request_per_minute":1}}`, "limits.request_per_minute", `unknown field "request_per_minute"; did you mean "requests_per_minute"?`},
		{http.MethodPost, "/admin/keys", `{"name":"a","colour":"red"}`, "colour", `unknown field "colour" (the fields are expires_at, limits, models, name, tools)`},
		{http.MethodPatch, "/admin/keys/b", `{"modles":[]}`, "modles", `unknown field "modles"; did you mean "models"?`},
	} {
		code, out := e.jsonDo(t, tc.method, tc.path, tc.body, keysAdmin)
		errObj, _ := out["error"].(map[string]any)
		if code != http.StatusBadRequest || errObj["param"] != tc.param || errObj["message"] != tc.msg {
			t.Errorf("%s %s: %d %v, want 400 %s %q", tc.method, tc.body, code, out, tc.param, tc.msg)
		}
	}
	if code, out := e.jsonDo(t, http.MethodGet, "/admin/keys/a", "", keysAdmin); code != http.StatusNotFound {
		t.Errorf("a refused key exists: %d %v", code, out)
	}
	code, out := e.jsonDo(t, http.MethodPost, "/admin/tools", `{"name":"t","descripton":"x","webhook":{"url":"http://127.0.0.1:9/t"}}`, keysAdmin)
	if errObj, _ := out["error"].(map[string]any); code != http.StatusBadRequest || errObj["message"] == nil ||
		!cmp.Equal(errObj["message"], "descripton: unknown field (did you mean description?)") {
		t.Errorf("a tool's typo: %d %v", code, out)
	}
}

// TestConfigToolNotReplaced: PUT or POST of a config tool's name answers
// 409 whatever the spec holds — before the webhook host is checked
// against webhook_allow, which would say something else.
func TestConfigToolNotReplaced(t *testing.T) {
	e, _ := newKeysEnv(t, scopedConfig(""), nil, nil)
	spec := `{"webhook":{"url":"http://example.com/create"}}`
	for _, tc := range []struct{ method, path, body string }{
		{http.MethodPut, "/admin/tools/create_task", spec},
		{http.MethodPost, "/admin/tools", `{"name":"create_task","webhook":{"url":"http://example.com/create"}}`},
	} {
		code, out := e.jsonDo(t, tc.method, tc.path, tc.body, keysAdmin)
		if code != http.StatusConflict {
			t.Errorf("%s %s: %d %v, want 409", tc.method, tc.path, code, out)
		}
	}
}
