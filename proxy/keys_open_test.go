package proxy_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestFirstRuntimeKeyClosesAnOpenProxy: a proxy without client keys is
// open; the first key an admin creates closes it, and the 401 a client
// that worked a moment ago now gets says why, where a proxy whose file
// names keys says only that the key is wrong.
func TestFirstRuntimeKeyClosesAnOpenProxy(t *testing.T) {
	const open = `auth:
  admin_keys: ["` + keysAdmin + `"]
upstreams:
  - name: up
    base_url: ${UPSTREAM}
    models: ["*"]
`
	cases := []struct {
		name, yaml, why string
	}{
		{"open until a runtime key", open, "POST /admin/keys"},
		{"keys in the file", scopedConfig(""), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newKeysEnv(t, tc.yaml, nil, nil)
			if code, out := e.jsonDo(t, http.MethodPost, "/admin/keys", `{"name":"alice"}`, keysAdmin); code != http.StatusCreated {
				t.Fatalf("create: %d %v", code, out)
			}
			resp := e.do(t, http.MethodGet, "/v1/models", "")
			body := readAll(t, resp)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("without a key: %d %s", resp.StatusCode, body)
			}
			if says := strings.Contains(body, "POST /admin/keys"); says != (tc.why != "") {
				t.Errorf("the 401 names the runtime key: %v, want %v: %s", says, tc.why != "", body)
			}
		})
	}
}
