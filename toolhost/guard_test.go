package toolhost_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolstream/toolstream/toolhost"
)

// TestGuardDial runs runtime webhooks against a real server on 127.0.0.1
// (no other network): the address is dialled only when the host is allowed
// by a literal auth.webhook_allow entry.
func TestGuardDial(t *testing.T) {
	var hits atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"ok":true}`))
	})
	port := mustURL(t, srv.URL).Port()

	for _, tc := range []struct {
		name    string
		allow   []string
		host    string
		wantErr string // "" for a call that reaches the server
	}{
		{"literal IP entry", []string{"127.0.0.1"}, "127.0.0.1", ""},
		{"literal name entry", []string{"localhost"}, "localhost", ""},
		{"literal entry beside a glob", []string{"local*", "localhost"}, "localhost", ""},
		// localhost resolves to loopback: under a glob it is refused when
		// registered (and would be at dial time: TestGuardDialRefuses).
		{"name resolving to loopback under a glob", []string{"local*"}, "localhost", "webhook.url: localhost resolves to 127.0.0.1"},
		{"catch-all glob", []string{"*"}, "localhost", "webhook.url: localhost resolves to 127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits.Store(0)
			h := newHost(t, nil, toolhost.Options{WebhookAllow: tc.allow})
			spec := `{"name":"hook","webhook":{"url":"http://` + tc.host + `:` + port + `/hook"}}`
			if _, err := h.CreateRuntimeTool(t.Context(), json.RawMessage(spec)); err != nil {
				if tc.wantErr == "" || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("registration: %v, want %q", err, tc.wantErr)
				}
				return
			}
			res := execute(t, h, toolhost.Call{ID: "call_1", Name: "hook", Arguments: json.RawMessage(`{}`)})
			switch {
			case tc.wantErr == "" && res.Err != nil:
				t.Errorf("call failed: %v", res.Err)
			case tc.wantErr == "" && hits.Load() != 1:
				t.Errorf("server saw %d requests, want 1", hits.Load())
			case tc.wantErr != "" && (res.Err == nil || res.Err.Code != toolhost.CodeExecutionFailed || res.Err.Message != tc.wantErr):
				t.Errorf("result %+v, want EXECUTION_FAILED %q", res, tc.wantErr)
			case tc.wantErr != "" && hits.Load() != 0:
				t.Errorf("server saw %d requests, want none", hits.Load())
			}
			if res.Err != nil && strings.Contains(res.Err.Message, "127.0.0.1") {
				t.Errorf("the model reads the address: %q", res.Err.Message)
			}
		})
	}
}

// TestGuardAllowListReload: a tool registered under one list is held to
// the list that is current when it connects.
func TestGuardAllowListReload(t *testing.T) {
	var hits atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
	h := newHost(t, nil, toolhost.Options{WebhookAllow: []string{"127.0.0.1"}})
	if _, err := h.CreateRuntimeTool(t.Context(), json.RawMessage(`{"name":"hook","webhook":{"url":"`+srv.URL+`"}}`)); err != nil {
		t.Fatal(err)
	}
	call := toolhost.Call{ID: "call_1", Name: "hook", Arguments: json.RawMessage(`{}`)}
	if res := execute(t, h, call); res.Err != nil {
		t.Fatalf("first call: %v", res.Err)
	}
	h.SetWebhookAllow([]string{"hooks.example.com"})
	res := execute(t, h, call)
	if res.Err == nil || res.Err.Message != "refused: the webhook host is not in auth.webhook_allow" {
		t.Errorf("after the reload: %+v, want refused", res)
	}
	if hits.Load() != 1 {
		t.Errorf("server saw %d requests, want only the first", hits.Load())
	}
}

// TestGuardNoRedirects: a runtime webhook answering 307 is an API_ERROR;
// the redirect target is never asked.
func TestGuardNoRedirects(t *testing.T) {
	var followed atomic.Bool
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/inside" {
			followed.Store(true)
			return
		}
		http.Redirect(w, r, "/inside", http.StatusTemporaryRedirect)
	})
	h := newHost(t, nil, toolhost.Options{WebhookAllow: []string{"127.0.0.1"}})
	if _, err := h.CreateRuntimeTool(t.Context(), json.RawMessage(`{"name":"hook","webhook":{"url":"`+srv.URL+`/start"}}`)); err != nil {
		t.Fatal(err)
	}
	res := execute(t, h, toolhost.Call{ID: "call_1", Name: "hook", Arguments: json.RawMessage(`{}`)})
	if res.Err == nil || res.Err.Code != toolhost.CodeAPIError || followed.Load() {
		t.Errorf("result %+v, followed %v; want API_ERROR and no second request", res, followed.Load())
	}
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
