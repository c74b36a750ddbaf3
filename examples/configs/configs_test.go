// Package configs_test holds the example configurations to what a user
// relies on: each passes toolstream check, and each tool's webhook is a
// path the example tool servers really serve.
package configs_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/examples/tools"
)

// keys are the variables the hosted-API examples need set, as a user
// would set them; every other ${VAR} in the files has a default.
var keys = []string{"OPENAI_API_KEY", "DEEPSEEK_API_KEY", "OPENROUTER_API_KEY"}

// TestExamplesPassCheck loads every example config the way toolstream
// check and serve do, environment included: no problem may be reported.
func TestExamplesPassCheck(t *testing.T) {
	for _, k := range keys {
		t.Setenv(k, "sk-example")
	}
	for _, file := range exampleFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			if _, err := config.Load(file); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestExamplesPointAtExampleTools: every tool of every example config
// (config.example.yaml and examples/tools/toolstream.yaml included) is a
// webhook on one of the example servers' addresses, signed with their
// secret, at a path that server answers — so copying a config and starting
// go run ./examples/tools/serve gives working tools, not a 404.
func TestExamplesPointAtExampleTools(t *testing.T) {
	for _, k := range keys {
		t.Setenv(k, "sk-example")
	}
	var servers tools.Servers
	at := map[string]string{}
	for _, s := range servers.Handlers(tools.DefaultSecret, nil) {
		srv := httptest.NewServer(s.Handler)
		t.Cleanup(srv.Close)
		at[s.Addr] = srv.URL
	}
	files := append(exampleFiles(t), "../../config.example.yaml", "../tools/toolstream.yaml")
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			cfg, err := config.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Tools) == 0 {
				t.Fatal("no tools")
			}
			for _, tool := range cfg.Tools {
				u, err := url.Parse(tool.Webhook.URL)
				if err != nil || at[u.Host] == "" {
					t.Errorf("%s: %s is not an example tool server (127.0.0.1:9001-9003)", tool.Name, tool.Webhook.URL)
					continue
				}
				if tool.Webhook.Secret.Value() != tools.DefaultSecret {
					t.Errorf("%s: signed with another secret than the example servers check", tool.Name)
				}
				// A signed call with empty arguments: the server may find
				// them wanting (4xx), but it must know the path.
				status, body := post(t, at[u.Host]+u.Path, tool.Name)
				if status == http.StatusNotFound && strings.Contains(body, "no such tool") || status == http.StatusUnauthorized {
					t.Errorf("%s: %s answered %d %s", tool.Name, tool.Webhook.URL, status, body)
				}
			}
		})
	}
}

func exampleFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) < 9 {
		t.Fatalf("example configs: %v %v", files, err)
	}
	return files
}

// post sends a call to a webhook signed the Standard Webhooks way with
// the example secret.
func post(t *testing.T, target, tool string) (int, string) {
	t.Helper()
	body := []byte(fmt.Sprintf(`{"id":"call_1","tool":%q,"arguments":{},"turn_id":"turn_1","round":1,"model":"m"}`, tool))
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(tools.DefaultSecret, "whsec_"))
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "call_1.%s.%s", ts, body)
	req, _ := http.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	req.Header.Set("webhook-id", "call_1")
	req.Header.Set("webhook-timestamp", ts)
	req.Header.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}
