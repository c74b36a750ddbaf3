package demo

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
)

// TestPlaygroundRuntimeTool: with the admin key the demo prints, a tool
// server the user starts on this machine can be registered at runtime
// (POST /admin/tools) and is listed beside the example tools: the demo
// lets runtime webhooks point at loopback, where it serves.
func TestPlaygroundRuntimeTool(t *testing.T) {
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(hook.Close)
	base, out := startPlaygroundOut(t, Options{})
	m := regexp.MustCompile(`admin key (sk-demo-admin-\w+)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no admin key in\n%s", out.String())
	}
	root := strings.TrimSuffix(base, "/v1")
	body := `{"name":"ping","description":"Answers ok.","parameters":{"type":"object"},"webhook":{"url":"` + hook.URL + `/ping"}}`
	req, _ := http.NewRequest(http.MethodPost, root+"/admin/tools", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+m[1])
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /admin/tools on the demo: %d %s", resp.StatusCode, got)
	}
}

// TestDemoConfigWebhookAllow: the demo allows runtime webhooks on
// loopback, and a -tools file's auth.webhook_allow too.
func TestDemoConfigWebhookAllow(t *testing.T) {
	for _, tc := range []struct {
		name string
		file []string
		want string
	}{
		{"example tools", nil, "127.0.0.1,localhost,::1"},
		{"a tools file's list joins", []string{"hooks.internal"}, "127.0.0.1,localhost,::1,hooks.internal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var file config.Config
			file.Auth.WebhookAllow = tc.file
			cfg, _ := demoConfig("http://127.0.0.1:1/v1", file, "")
			if got := strings.Join(cfg.Auth.WebhookAllow, ","); got != tc.want {
				t.Errorf("webhook_allow = %s, want %s", got, tc.want)
			}
		})
	}
}
