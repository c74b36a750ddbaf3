package proxy_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// TestRuntimeKeyLifecycle: an admin creates a key (shown once), the key
// works within its scope, a PATCH changes the next turn, a DELETE refuses
// it at once, and keys survive a restart while revoked ones stay revoked.
func TestRuntimeKeyLifecycle(t *testing.T) {
	dir := t.TempDir()
	dbBackend, err := badger.Open(config.Storage{Path: dir}, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := store.Checked(dbBackend)
	e, _ := newKeysEnv(t, scopedConfig(""), nil, []upstreamtest.Round{
		textRound("c1", "Adding. ", call("create_task", `{"title":"Gym"}`)), textRound("c2", "Added."),
		textRound("c3", "No tools now."),
	}, db)

	code, created := e.jsonDo(t, http.MethodPost, "/admin/keys", `{"name":"alice","tools":["create_task"],"limits":{"requests_per_minute":100}}`, keysAdmin)
	secret, _ := created["key"].(string)
	if code != http.StatusCreated || !strings.HasPrefix(secret, "sk-ts-") || created["source"] != "runtime" {
		t.Fatalf("create: %d %v", code, created)
	}
	if code, _ := e.jsonDo(t, http.MethodPost, "/admin/keys", `{"name":"alice"}`, keysAdmin); code != http.StatusConflict {
		t.Errorf("a second alice: %d, want 409", code)
	}
	if code, out := e.jsonDo(t, http.MethodGet, "/admin/keys/alice", "", keysAdmin); code != 200 || out["key"] != nil {
		t.Errorf("GET shows the key again, or fails: %d %v", code, out)
	}
	code, list := e.jsonDo(t, http.MethodGet, "/admin/keys", "", keysAdmin)
	var names []string
	for _, d := range list["data"].([]any) {
		names = append(names, d.(map[string]any)["name"].(string)+":"+d.(map[string]any)["source"].(string))
	}
	if code != 200 || strings.Join(names, ",") != "key_"+sha256hex(plainKey)[:12]+":config,app:config,reader:config,alice:runtime" {
		t.Errorf("list: %d %v", code, names)
	}

	// Use: the key's turn runs its tool.
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest, "Authorization: Bearer "+secret)
	if body := readAll(t, resp); resp.StatusCode != 200 || resp.Header.Get("X-Ratelimit-Limit-Requests") != "100" {
		t.Fatalf("turn with the new key: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if calls := e.hooks.received(); len(calls) != 1 || calls[0].Tool != "create_task" {
		t.Fatalf("webhook calls %+v", calls)
	}

	// Patch: no tools from the next turn on.
	if code, out := e.jsonDo(t, http.MethodPatch, "/admin/keys/alice", `{"tools":[]}`, keysAdmin); code != 200 || out["tools"] == nil {
		t.Fatalf("patch: %d %v", code, out)
	}
	resp = e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest, "Authorization: Bearer "+secret)
	readAll(t, resp)
	if b := string(e.up.Requests()[2].Body); strings.Contains(b, "create_task") {
		t.Errorf("the turn after the patch was taught create_task: %s", b)
	}

	// Config keys are read-only here.
	if code, _ := e.jsonDo(t, http.MethodDelete, "/admin/keys/app", "", keysAdmin); code != http.StatusConflict {
		t.Errorf("deleting a config key: %d, want 409", code)
	}
	// A client key is not an admin key.
	if code, _ := e.jsonDo(t, http.MethodGet, "/admin/keys", "", secret); code != http.StatusForbidden {
		t.Errorf("a client key on /admin/keys: %d, want 403", code)
	}

	// Create a second key, then revoke the first.
	_, bob := e.jsonDo(t, http.MethodPost, "/admin/keys", `{"name":"bob","models":["m"]}`, keysAdmin)
	bobKey, _ := bob["key"].(string)
	resp = e.do(t, http.MethodDelete, "/admin/keys/alice", "", "Authorization: Bearer "+keysAdmin)
	readAll(t, resp)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	resp = e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest, "Authorization: Bearer "+secret)
	if body := readAll(t, resp); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a revoked key: %d %s", resp.StatusCode, body)
	}

	// Restart on the same storage.
	e.srv.Close()
	e.proxy.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db2Backend, err := badger.Open(config.Storage{Path: dir}, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db2 := store.Checked(db2Backend)
	t.Cleanup(func() { db2.Close() })
	e2, _ := newKeysEnv(t, scopedConfig(""), nil, []upstreamtest.Round{textRound("c4", "Still here.")}, db2)
	resp = e2.do(t, http.MethodPost, "/v1/chat/completions", toolRequest, "Authorization: Bearer "+bobKey)
	if body := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(body, "Still here.") {
		t.Errorf("bob after a restart: %d %s", resp.StatusCode, body)
	}
	resp = e2.do(t, http.MethodPost, "/v1/chat/completions", toolRequest, "Authorization: Bearer "+secret)
	if body := readAll(t, resp); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("alice came back after a restart: %d %s", resp.StatusCode, body)
	}
	if code, out := e2.jsonDo(t, http.MethodGet, "/admin/keys/bob", "", keysAdmin); code != 200 || out["models"].([]any)[0] != "m" {
		t.Errorf("bob's scope after a restart: %d %v", code, out)
	}
}

// TestRuntimeKeyBadRequests: the admin routes refuse what they would not
// honour, with the field named.
func TestRuntimeKeyBadRequests(t *testing.T) {
	e, _ := newKeysEnv(t, scopedConfig(""), nil, nil)
	for _, tc := range []struct{ method, path, body, param string }{
		{"POST", "/admin/keys", `{}`, "name"},
		{"POST", "/admin/keys", `{"name":"key_abc"}`, "name"},
		{"POST", "/admin/keys", `{"name":"has space"}`, "name"},
		{"POST", "/admin/keys", `{"name":"x","tool":["a"]}`, ""},
		{"POST", "/admin/keys", `{"name":"x","tools":"create_task"}`, "tools"},
		{"POST", "/admin/keys", `{"name":"x","limits":{"requests_per_minute":-1}}`, "limits.requests_per_minute"},
		{"POST", "/admin/keys", `{"name":"x","expires_at":"2001-01-01T00:00:00Z"}`, "expires_at"},
		{"POST", "/admin/keys", `{"name":"x","expires_at":"tomorrow"}`, "expires_at"},
		{"POST", "/admin/keys", `{"name":"x","models":["[bad"]}`, "models[0]"},
	} {
		code, out := e.jsonDo(t, tc.method, tc.path, tc.body, keysAdmin)
		errObj, _ := out["error"].(map[string]any)
		if code != 400 || errObj["code"] != "invalid_key" || tc.param != "" && errObj["param"] != tc.param {
			t.Errorf("%s %s: %d %v, want 400 invalid_key on %q", tc.method, tc.body, code, out, tc.param)
		}
	}
	if code, _ := e.jsonDo(t, "PATCH", "/admin/keys/nobody", `{}`, keysAdmin); code != 404 {
		t.Errorf("PATCH of an unknown key: %d", code)
	}
	if code, _ := e.jsonDo(t, "DELETE", "/admin/keys/nobody", ``, keysAdmin); code != 404 {
		t.Errorf("DELETE of an unknown key: %d", code)
	}
}

// TestRevokedMidTurn: a key revoked while its turn's tool runs stops the
// turn before the next round: the stream ends with an error and no
// [DONE], and the upstream never gets the second round.
func TestRevokedMidTurn(t *testing.T) {
	e, _ := newKeysEnv(t, scopedConfig(""), nil, []upstreamtest.Round{
		textRound("c1", "Adding. ", call("create_task", `{"title":"Gym"}`)), textRound("c2", "Added."),
	})
	_, created := e.jsonDo(t, http.MethodPost, "/admin/keys", `{"name":"carol"}`, keysAdmin)
	secret := created["key"].(string)
	release := make(chan struct{})
	e.hooks.answer("create_task", hookAnswer{body: `{"ok":true}`, wait: release})
	st := openStream(t, e, context.Background(), toolRequest, "Authorization: Bearer "+secret)
	st.until(t, "Adding.")
	<-e.hooks.arrivals
	resp := e.do(t, http.MethodDelete, "/admin/keys/carol", "", "Authorization: Bearer "+keysAdmin)
	readAll(t, resp)
	close(release)
	rest, _ := io.ReadAll(st.resp.Body)
	if !strings.Contains(string(rest), `"code":"invalid_api_key"`) || strings.Contains(string(rest), "[DONE]") {
		t.Errorf("after the revocation the stream read %s", rest)
	}
	if n := len(e.up.Requests()); n != 1 {
		t.Errorf("upstream got %d requests, want 1", n)
	}
}

// TestRuntimeKeyExpires: a key with expires_at works until then and is
// refused from then on, without anyone revoking it.
func TestRuntimeKeyExpires(t *testing.T) {
	e, _ := newKeysEnv(t, scopedConfig(""), nil, nil)
	at := time.Now().Add(time.Second).UTC()
	code, created := e.jsonDo(t, http.MethodPost, "/admin/keys", `{"name":"temp","expires_at":"`+at.Format(time.RFC3339Nano)+`"}`, keysAdmin)
	if code != http.StatusCreated || created["expires_at"] == nil {
		t.Fatalf("create: %d %v", code, created)
	}
	secret := created["key"].(string)
	if code, _ := e.jsonDo(t, http.MethodGet, "/v1/models", "", secret); code != 200 {
		t.Fatalf("before expiry: %d", code)
	}
	time.Sleep(time.Until(at) + 50*time.Millisecond)
	if code, _ := e.jsonDo(t, http.MethodGet, "/v1/models", "", secret); code != http.StatusUnauthorized {
		t.Errorf("after expiry: %d, want 401", code)
	}
}
