package proxy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// Distinctive credentials a tool is sent.
const (
	echoToken  = "echo-TOKEN-6b1d9e3f27"
	echoSecret = "whsec_ZWNoby1zaWduaW5nLXNlY3JldC0xMjM0"
	echoAdmin  = "sk-admin-echo"
	echoClient = "sk-client-echo"
)

const echoConfig = `auth:
  keys: ["` + echoClient + `"]
  admin_keys: ["` + echoAdmin + `"]
  webhook_allow: ["127.0.0.1"]
loop:
  keepalive: 0s
` + textUpstream + `tools:
  - name: create_task
    webhook:
      url: "${WEBHOOK}/create_task"
      secret: "` + echoSecret + `"
      headers: {Authorization: "Bearer ` + echoToken + `"}
`

// echoHooks answers every webhook request with the headers it got (and,
// at /fail, with them in a 401's body), as a debugging endpoint or a
// misconfigured gateway does.
func echoHooks(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		b, _ := json.Marshal(map[string]any{"headers": r.Header})
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/fail") {
			w.WriteHeader(http.StatusUnauthorized)
		}
		w.Write(b)
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

// TestProbeEchoedSecrets (fault probe, fault 11): a webhook that echoes
// its request headers put the tool's configured token, unmasked, into the
// client's events, the audit excerpt and the model's input. The result is
// masked where it is born, so none of them sees it: for a config tool, a
// tool registered at run time, and a tool failing with the headers in its
// error body.
func TestProbeEchoedSecrets(t *testing.T) {
	runtimeSpec := `{"name":"create_task","webhook":{"url":"%s/create_task","secret":"` + echoSecret +
		`","headers":{"X-Api-Key":"` + echoToken + `"}}}`
	for _, tc := range []struct {
		name    string
		yaml    string
		runtime bool   // register the tool at run time instead
		path    string // the webhook's path
		status  string // the call's status on record
	}{
		{name: "config tool", yaml: echoConfig, status: "ok"},
		{name: "config tool failing", yaml: strings.Replace(echoConfig, "/create_task", "/fail", 1), status: "error"},
		{name: "runtime tool", yaml: strings.Split(echoConfig, "tools:")[0], runtime: true, status: "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hooks := echoHooks(t)
			rounds := []upstreamtest.Round{textRound("c1", "Adding. ", call("create_task", `{"title":"Gym"}`)), textRound("c2", "Done.")}
			e := newEchoEnv(t, tc.yaml, hooks.URL, rounds)
			if tc.runtime {
				spec := strings.Replace(runtimeSpec, "%s", hooks.URL, 1)
				resp := e.do(t, http.MethodPost, "/admin/tools", spec, "Authorization: Bearer "+echoAdmin)
				if body := readAll(t, resp); resp.StatusCode != http.StatusCreated {
					t.Fatalf("registering: %d %s", resp.StatusCode, body)
				}
			}
			resp := e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest, "Authorization: Bearer "+echoClient)
			client := readAll(t, resp)
			if resp.StatusCode != http.StatusOK || !strings.Contains(client, `"tool.finished"`) {
				t.Fatalf("status %d: %s", resp.StatusCode, client)
			}
			code, calls := e.jsonDo(t, http.MethodGet, "/admin/calls", "", echoAdmin)
			recs, _ := calls["data"].([]any)
			if code != http.StatusOK || len(recs) != 1 || recs[0].(map[string]any)["status"] != tc.status {
				t.Fatalf("audit log: %d %v", code, calls)
			}
			audit, _ := json.Marshal(recs[0])
			reqs := e.up.Requests()
			if len(reqs) != 2 {
				t.Fatalf("upstream got %d requests, want 2", len(reqs))
			}
			for where, text := range map[string]string{
				"the client's stream":          client,
				"the audit record":             string(audit),
				"the model's next-round input": string(reqs[1].Body),
			} {
				for _, s := range []string{echoToken, echoSecret, strings.TrimPrefix(echoSecret, "whsec_")} {
					if strings.Contains(text, s) {
						t.Errorf("%s shows %q: %s", where, s, text)
					}
				}
				if !strings.Contains(text, "[redacted]") {
					t.Errorf("%s has no [redacted] where the echo was: %s", where, text)
				}
			}
		})
	}
}

// newEchoEnv is a stored turn env whose ${WEBHOOK} is url.
func newEchoEnv(t *testing.T, yaml, url string, rounds []upstreamtest.Round) *turnEnv {
	t.Helper()
	up := upstreamtest.New(rounds...)
	vars := map[string]string{"UPSTREAM": up.URL, "WEBHOOK": url}
	cfg, err := config.Parse("toolstream.yaml", []byte(yaml), func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	w := wired(t, openStore(t, config.Storage{InMemory: true}, badger.Options{}))
	p := parts{up: up, cfg: cfg}
	host := p.host(t, w.Host(toolhost.Options{}))
	return p.serve(t, w.Proxy(proxy.Options{}, host, nil))
}

// TestProbeRequestMCPEchoedSecrets: an MCP server a request names that
// fails quoting the token it was sent (isError) puts it in no answer,
// audit record or round the model reads: the request's credentials are
// masked like a configured tool's.
func TestProbeRequestMCPEchoedSecrets(t *testing.T) {
	shop := newShopServer(t)
	e := newResponsesEnv(t, reqMCPConfig("text"), []upstreamtest.Round{
		textRound("s1", call("leak", `{}`)), textRound("a1", "It failed."),
	})
	tool := strings.Replace(shopTool(shop.url, "never"), `["lookup_order"]`, `["leak"]`, 1)
	status, a, raw := e.post(t, `{"model":"m","input":"Try it.",`+tool+`}`)
	if status != 200 || outputTypes(a) != "mcp_list_tools,mcp_call,message" || !strings.Contains(raw, "refused: [redacted] may not do this") {
		t.Fatalf("%d %s", status, raw)
	}
	calls := readAll(t, e.do(t, http.MethodGet, "/admin/calls", "", "Authorization: Bearer "+reqMCPAdmin))
	seen := raw + calls + strings.Join(responsesUpstream(t, e, 2), "\n")
	if strings.Contains(seen, shopToken) {
		t.Errorf("the token leaked:\n%s", seen)
	}
	if !strings.Contains(calls, `"error_code":"EXECUTION_FAILED"`) {
		t.Errorf("the audit log does not hold the failed call: %s", calls)
	}
}
