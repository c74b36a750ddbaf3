package proxy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/proxy/wiring"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// lockedBuffer is a log destination the test reads while handlers may
// still write.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Distinctive secrets, one of each kind the config holds.
const (
	grepClientKey   = "cli-KEY-7f3a9c21e5"
	grepNamedKey    = "app-KEY-3e8c1d5b97"
	grepAdminKey    = "adm-KEY-0b8d6e4f1a"
	grepGoodKey     = "sk-good-UPKEY-5c2e9a7d13"
	grepAuthKey     = "sk-auth-UPKEY-8e1f3b6c42"
	grepStreamKey   = "sk-strm-UPKEY-2a9d4c7e58"
	grepHookSecret  = "whsec_dG9vbHN0cmVhbS1ncmVwLXRlc3Qtc2VjcmV0"
	grepHookToken   = "hook-TOKEN-4d7b2e9f16"
	grepHookAuthHdr = "Bearer " + grepHookToken
)

const secretsYAML = `
loop: {keepalive: 0s}
auth:
  keys:
    - ${CLIENT_KEY}
    - {name: grep-app, key: "${NAMED_KEY}", limits: {requests_per_minute: 100}}
  admin_keys: ["${ADMIN_KEY}"]
  metrics: admin
default_upstream: auth
upstreams:
  - name: good
    base_url: ${GOOD}
    api_key: ${GOOD_KEY}
    models: ["good"]
    tool_mode: text
    text_format: hermes
  - name: auth
    base_url: ${AUTH}
    api_key: ${AUTH_KEY}
    models: ["bad-auth"]
  - name: stream
    base_url: ${STREAM}
    api_key: ${STREAM_KEY}
    models: ["bad-stream"]
tools:
  - name: list_tasks
    description: List the user's tasks.
    webhook:
      url: "${WEBHOOK}/list_tasks"
      secret: ${HOOK_SECRET}
      headers: {Authorization: "Bearer ${HOOK_TOKEN}"}
`

// TestSecretsNeverLeak configures a distinctive secret of every kind, runs
// turns with tool calls, upstreams that repeat toolstream's key in a 401
// body (whole and abbreviated the way OpenAI does) and in an error event
// inside a stream, a pass-through route and /metrics, and then looks for
// the secrets in everything that left the proxy: the log, every response
// body and header, every webhook request, every upstream request (except
// the one header each party must get), and every key and value the store
// wrote (audit log, turn records).
func TestSecretsNeverLeak(t *testing.T) {
	good := upstreamtest.New(
		upstreamtest.Round{Events: []string{upstreamtest.Chunk("g1", "good", `{"role":"assistant","content":""}`, ""), hermes("g1", "list_tasks"), upstreamtest.Chunk("g1", "good", `{}`, "stop")}},
		upstreamtest.Round{Events: upstreamtest.Text("g2", "good", "No tasks.")},
		upstreamtest.Round{Events: []string{upstreamtest.Chunk("g3", "good", `{"role":"assistant","content":""}`, ""), hermes("g3", "list_tasks"), upstreamtest.Chunk("g3", "good", `{}`, "stop")}},
		upstreamtest.Round{Events: upstreamtest.Text("g4", "good", "Still none.")},
		upstreamtest.Round{Events: []string{upstreamtest.Chunk("g5", "good", `{"role":"assistant","content":""}`, ""), hermes("g5", "list_tasks"), upstreamtest.Chunk("g5", "good", `{}`, "stop")}},
		upstreamtest.Round{Events: upstreamtest.Text("g6", "good", "Nothing.")},
	)
	// auth refuses every request, repeating the key it got the way
	// OpenAI (abbreviated) and others (whole) do.
	refuse := func(h http.Header) (int, string) {
		auth := h.Get("Authorization")
		key := strings.TrimPrefix(auth, "Bearer ")
		abbrev := key
		if len(key) > 12 {
			abbrev = key[:8] + strings.Repeat("*", 20) + key[len(key)-4:]
		}
		msg := fmt.Sprintf("Incorrect API key provided: %s. You sent %q.", abbrev, auth)
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": "invalid_api_key"}})
		return http.StatusUnauthorized, string(b)
	}
	authUp := upstreamtest.NewFunc(func(r upstreamtest.Request) upstreamtest.Round {
		status, body := refuse(r.Header)
		return upstreamtest.Round{Status: status, Body: body}
	})
	for _, p := range []string{"/v1/embeddings", "/v1/models"} {
		authUp.Handle(p, func(w http.ResponseWriter, r *http.Request) {
			status, body := refuse(r.Header)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write([]byte(body))
		})
	}
	// stream starts answering, then reports the key inside the stream.
	streamUp := upstreamtest.NewFunc(func(r upstreamtest.Request) upstreamtest.Round {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": "key " + r.Header.Get("Authorization") + " was revoked mid-stream", "type": "invalid_request_error"}})
		return upstreamtest.Round{Events: []string{upstreamtest.Chunk("s1", "bad-stream", `{"role":"assistant","content":"Hel"}`, ""), string(b)}, NoDone: true}
	})
	t.Cleanup(func() { authUp.Close(); streamUp.Close() })
	hooks := newHookServer(t)

	vars := map[string]string{
		"GOOD": good.URL, "AUTH": authUp.URL, "STREAM": streamUp.URL, "WEBHOOK": hooks.srv.URL,
		"CLIENT_KEY": grepClientKey, "NAMED_KEY": grepNamedKey, "ADMIN_KEY": grepAdminKey,
		"GOOD_KEY": grepGoodKey, "AUTH_KEY": grepAuthKey, "STREAM_KEY": grepStreamKey,
		"HOOK_SECRET": grepHookSecret, "HOOK_TOKEN": grepHookToken,
	}
	cfg, err := config.Parse("toolstream.yaml", []byte(secretsYAML), func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	g := newGrepParts(t, cfg)
	logs, base, dir, w, host := g.logs, g.base, g.dir, g.w, g.host
	e := serve(t, cfg, good, w.Proxy(proxy.Options{Logger: slog.New(base)}, host, nil))

	var seen strings.Builder // everything a client received
	call := func(method, path, body string, wantStatus int, headers ...string) string {
		t.Helper()
		resp := e.do(t, method, path, body, headers...)
		got := readAll(t, resp)
		if resp.StatusCode != wantStatus {
			t.Errorf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, wantStatus, got)
		}
		fmt.Fprintf(&seen, "%s %s\n%v\n%s\n", method, path, resp.Header, got)
		return got
	}
	auth := "Authorization: Bearer " + grepClientKey
	chat := func(model string, stream bool, extra string) string {
		return fmt.Sprintf(`{"model":%q,"stream":%v,"messages":[{"role":"user","content":"list my tasks"}]%s}`, model, stream, extra)
	}

	if got := call("POST", "/v1/chat/completions", chat("good", true, ""), 200, auth); !strings.Contains(got, "[DONE]") {
		t.Errorf("streamed tool turn did not finish: %s", got)
	}
	call("POST", "/v1/chat/completions", chat("good", false, ""), 200, auth)
	for _, stream := range []bool{true, false} {
		got := call("POST", "/v1/chat/completions", chat("bad-auth", stream, ""), http.StatusBadGateway, auth)
		if e := decodeError(t, got); e.Error.Code != "upstream_auth_failed" || e.Error.Type != "api_error" ||
			!strings.Contains(e.Error.Message, "upstream auth") || !strings.Contains(e.Error.Message, "upstreams[1].api_key") {
			t.Errorf("stream %v: error %+v, want upstream_auth_failed naming upstream auth and upstreams[1].api_key", stream, e.Error)
		}
	}
	// Without server tools a non-streaming request is relayed as JSON.
	call("POST", "/v1/chat/completions", chat("bad-auth", false, `,"tool_choice":"none"`), http.StatusBadGateway, auth)
	if got := call("POST", "/v1/embeddings", `{"model":"e","input":"x"}`, http.StatusBadGateway, auth); !strings.Contains(got, "upstream_auth_failed") {
		t.Errorf("pass-through 401: %s, want upstream_auth_failed", got)
	}
	if got := call("POST", "/v1/chat/completions", chat("bad-stream", true, ""), 200, auth); !strings.Contains(got, `"error"`) || strings.Contains(got, "[DONE]") {
		t.Errorf("stream with an error event: %s, want the error in-band and no [DONE]", got)
	}
	call("GET", "/v1/models", "", 200, auth)

	// A named key and a runtime key: the one answer that shows the
	// runtime key is its creation's, which is left out of what is
	// searched.
	if got := call("POST", "/v1/chat/completions", chat("good", true, ""), 200, "Authorization: Bearer "+grepNamedKey); !strings.Contains(got, "[DONE]") {
		t.Errorf("named key's tool turn did not finish: %s", got)
	}
	resp := e.do(t, "POST", "/admin/keys", `{"name":"grep-rt"}`, "Authorization: Bearer "+grepAdminKey)
	var created struct{ Key string }
	json.Unmarshal([]byte(readAll(t, resp)), &created)
	runtimeKey := created.Key
	if resp.StatusCode != 201 || runtimeKey == "" {
		t.Fatalf("creating a runtime key: %d", resp.StatusCode)
	}
	call("GET", "/v1/models", "", 200, "Authorization: Bearer "+runtimeKey)
	call("POST", "/v1/chat/completions", chat("bad-auth", false, ""), http.StatusBadGateway, "Authorization: Bearer "+runtimeKey)
	call("GET", "/admin/keys", "", 200, "Authorization: Bearer "+grepAdminKey)
	call("GET", "/metrics", "", 200, "Authorization: Bearer "+grepAdminKey)
	call("GET", "/metrics", "", 401, "Authorization: Bearer "+grepClientKey)

	// Every handler has returned, and so has written its log line, once
	// the proxy's server is closed.
	e.srv.Close()

	var sent strings.Builder // everything the proxy sent to webhooks and upstreams
	hookCalls := hooks.received()
	if len(hookCalls) != 3 {
		t.Errorf("webhook called %d times, want 3", len(hookCalls))
	}
	for _, c := range hookCalls {
		if got := c.Header.Get("Authorization"); got != grepHookAuthHdr {
			t.Errorf("webhook got Authorization %q, want its configured header", got)
		}
		h := c.Header.Clone()
		h.Del("Authorization") // the one place this secret belongs
		b, _ := json.Marshal(c.Body)
		fmt.Fprintf(&sent, "webhook %s\n%v\n%s\n", c.Tool, h, b)
	}
	for name, up := range map[string]*upstreamtest.Server{grepGoodKey: good, grepAuthKey: authUp, grepStreamKey: streamUp} {
		for _, r := range up.Requests() {
			if got := r.Header.Get("Authorization"); got != "Bearer "+name {
				t.Errorf("upstream request %s %s had Authorization %q, want its own key", r.Method, r.Path, got)
			}
			h := r.Header.Clone()
			h.Del("Authorization")
			fmt.Fprintf(&sent, "upstream %s %s\n%v\n%s\n", r.Method, r.Path, h, r.Body)
		}
	}

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	stored := dumpStore(t, dir)
	if !strings.Contains(stored, "list_tasks") || !strings.Contains(stored, `"key_id":"grep-app"`) || !strings.Contains(stored, "grep-rt") {
		t.Error("the store holds no call of list_tasks by grep-app, or no runtime key: the grep of it proves nothing")
	}

	secrets := []string{grepClientKey, grepNamedKey, runtimeKey, grepAdminKey, grepGoodKey, grepAuthKey, grepStreamKey, grepHookSecret, grepHookToken}
	for where, text := range map[string]string{"log": logs.String(), "responses": seen.String(), "requests sent": sent.String(), "store": stored} {
		for _, s := range secrets {
			// The whole secret, and its last eight characters: a leak
			// of an abbreviated key shows its tail.
			for _, needle := range []string{s, s[len(s)-8:]} {
				if i := strings.Index(text, needle); i >= 0 {
					t.Errorf("%s holds %q:\n…%s…", where, needle, text[max(0, i-200):min(len(text), i+len(needle)+100)])
				}
			}
		}
	}
	if !strings.Contains(logs.String(), "[redacted]") {
		t.Error("the log shows no redaction: the upstreams' echoes never reached it, and the test proves nothing")
	}
}

// grepParts are what a secrets grep wires: a debug-level JSON log it
// reads, an on-disk store it dumps, and the tool host.
type grepParts struct {
	logs *lockedBuffer
	base slog.Handler
	dir  string
	w    *wiring.Storage
	host *toolhost.Host
}

// newGrepParts wires the store and the tool host the way cmd does; the
// tool host's log is masked as cmd masks it, the proxy gets the bare
// handler and must mask its lines itself.
func newGrepParts(t *testing.T, cfg *config.Config) grepParts {
	t.Helper()
	g := grepParts{logs: &lockedBuffer{}, dir: t.TempDir()}
	g.base = slog.NewJSONHandler(g.logs, &slog.HandlerOptions{Level: slog.LevelDebug})
	dbBackend, err := badger.Open(config.Storage{Path: g.dir}, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g.w = wiring.New(store.Checked(dbBackend), "inst_grep", config.Storage{}, nil)
	g.host, err = toolhost.New(cfg.Tools, g.w.Host(toolhost.Options{ToolTimeout: cfg.Loop.ToolTimeout, Logger: slog.New(proxy.MaskingHandler(g.base, cfg))}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.host.Close() })
	return g
}

// dumpStore reads every key and value of the badger directory, as badger
// itself decodes them (its table files are compressed, so a grep of the
// raw files could miss what they hold).
func dumpStore(t *testing.T, dir string) string {
	t.Helper()
	db, err := dgbadger.Open(dgbadger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	err = db.View(func(txn *dgbadger.Txn) error {
		it := txn.NewIterator(dgbadger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "%s = %s\n", it.Item().Key(), v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Credentials a request sends its own MCP servers (reqmcp.go).
const (
	grepMCPToken  = "mcp-TOKEN-9a4f2c7e31"
	grepMCPHeader = "mcp-HDR-6b1e8d3f05"
)

// TestRequestMCPSecretsNeverLeak: the credentials a request sends the MCP
// servers it names (a Responses mcp tool's authorization and headers, a
// Messages mcp_servers entry's authorization_token) reach that server
// and nothing else: not the log (at debug), the answers (streamed, whole
// and stored, fetched again), the upstream, the audit log or any value
// the store wrote — also when the server repeats them in its result, and
// when it refuses them.
func TestRequestMCPSecretsNeverLeak(t *testing.T) {
	shop := newShopServer(t)
	deny := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad token "+r.Header.Get("Authorization"), http.StatusUnauthorized)
	}))
	t.Cleanup(deny.Close)
	var rounds []upstreamtest.Round
	for range 3 {
		rounds = append(rounds, shopCallRound("text"), textRound("a", "Shipped."))
	}
	up := upstreamtest.New(rounds...)
	cfg, err := config.Parse("toolstream.yaml", []byte(reqMCPConfig("text")), func(k string) (string, bool) { return up.URL, k == "UPSTREAM" })
	if err != nil {
		t.Fatal(err)
	}
	g := newGrepParts(t, cfg)
	logs, base, dir, w, host := g.logs, g.base, g.dir, g.w, g.host
	e := serve(t, cfg, up, w.Proxy(proxy.Options{Logger: slog.New(base)}, host, nil))

	var seen strings.Builder
	call := func(path, body string, want int) string {
		t.Helper()
		resp := e.do(t, http.MethodPost, path, body)
		got := readAll(t, resp)
		if resp.StatusCode != want {
			t.Errorf("%s: %d %s, want %d", path, resp.StatusCode, got, want)
		}
		fmt.Fprintf(&seen, "%s\n%v\n%s\n", path, resp.Header, got)
		return got
	}
	tool := func(url string) string {
		return `"tools":[{"type":"mcp","server_label":"shop","server_url":"` + url + `","authorization":"` + grepMCPToken +
			`","headers":{"X-Shop-Key":"` + grepMCPHeader + `"},"require_approval":"never"}]`
	}
	for _, stream := range []string{"true", "false"} {
		got := call("/v1/responses", `{"model":"m","stream":`+stream+`,"input":"Where is order 42?",`+tool(shop.url)+`}`, 200)
		if !strings.Contains(got, "[redacted]") {
			t.Errorf("the server's echo of the token was not masked: %s", got)
		}
		if id := regexp.MustCompile(`"id":"(resp_[A-Za-z0-9]+)"`).FindStringSubmatch(got); id != nil {
			fmt.Fprintf(&seen, "%s\n", readAll(t, e.do(t, http.MethodGet, "/v1/responses/"+id[1], "")))
		}
	}
	body := shopMessages(shop.url, true)
	body = strings.Replace(body, shopToken, grepMCPToken, 1)
	call("/v1/messages", body, 200)
	call("/v1/responses", `{"model":"m","input":"hi",`+tool(deny.URL)+`}`, http.StatusFailedDependency)
	e.srv.Close()

	shop.mu.Lock()
	for _, a := range shop.auth {
		if a != "Bearer "+grepMCPToken {
			t.Errorf("the server got Authorization %q, want the request's token", a)
		}
	}
	shop.mu.Unlock()
	var sent strings.Builder
	for _, r := range up.Requests() {
		fmt.Fprintf(&sent, "%v\n%s\n", r.Header, r.Body)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	stored := dumpStore(t, dir)
	if !strings.Contains(stored, `"mcp_server":"shop"`) || !strings.Contains(stored, "resp_") {
		t.Error("the store holds no call of the shop server or no stored response: the grep of it proves nothing")
	}
	for where, text := range map[string]string{"log": logs.String(), "answers": seen.String(), "upstream requests": sent.String(), "store": stored} {
		for _, s := range []string{grepMCPToken, grepMCPHeader} {
			if i := strings.Index(text, s); i >= 0 {
				t.Errorf("%s holds %q:\n…%s…", where, s, text[max(0, i-200):min(len(text), i+len(s)+100)])
			}
		}
	}
}
