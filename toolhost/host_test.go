package toolhost_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

const weatherParams = `{
	"type": "object",
	"properties": {
		"city": {"type": "string"},
		"days": {"type": "integer", "minimum": 1, "maximum": 7}
	},
	"required": ["city"]
}`

// weatherTool is get_weather from docs/configuration.md, pointed at url.
func weatherTool(url string) config.Tool {
	return config.Tool{
		Name:           "get_weather",
		Description:    "Current weather for a city.",
		Parameters:     json.RawMessage(weatherParams),
		Webhook:        &config.Webhook{URL: url},
		MaxResultBytes: 64 * config.KiB,
	}
}

func newHost(t testing.TB, tools []config.Tool, opts toolhost.Options) *toolhost.Host {
	t.Helper()
	h, err := toolhost.New(tools, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// serve starts a webhook server for the test.
func serve(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func weatherCall(args string) toolhost.Call {
	return toolhost.Call{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(args),
		TurnID: "turn_1", Round: 2, Model: "qwen3"}
}

// execute runs a call that must not return a Go error.
func execute(t *testing.T, h *toolhost.Host, call toolhost.Call) toolhost.Result {
	t.Helper()
	res, err := h.Execute(t.Context(), call)
	if err != nil {
		t.Fatalf("Execute: unexpected error %v", err)
	}
	return res
}

func TestWebhookRequest(t *testing.T) {
	const secret = "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0"
	now := time.Unix(1_800_000_000, 0)
	type received struct {
		method, path string
		header       http.Header
		body         []byte
	}
	got := make(chan received, 1)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- received{r.Method, r.URL.Path, r.Header.Clone(), body}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{ "temp_c": 21,  "sky": "clear" }`)
	})
	tool := weatherTool(srv.URL + "/weather")
	tool.Webhook.Secret = secret
	tool.Webhook.Headers = map[string]config.Secret{"Authorization": "Bearer tok", "X-Request-Id": "mine"}
	h := newHost(t, []config.Tool{tool}, toolhost.Options{Now: func() time.Time { return now }})

	res := execute(t, h, weatherCall(`{"city": "Paris", "days": "3"}`))

	want := toolhost.Result{
		CallID: "call_1", Name: "get_weather",
		Arguments: json.RawMessage(`{"city":"Paris","days":3}`),
		Content:   `{"temp_c":21,"sky":"clear"}`, IsJSON: true,
		Status: toolhost.StatusOK, Executed: true,
	}
	if diff := cmp.Diff(want, res, cmpopts.IgnoreFields(toolhost.Result{}, "Duration", "RunTime")); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if res.Duration <= 0 {
		t.Errorf("Duration = %v, want > 0", res.Duration)
	}

	r := <-got
	if r.method != http.MethodPost || r.path != "/weather" {
		t.Errorf("request %s %s, want POST /weather", r.method, r.path)
	}
	wantBody := `{"id":"call_1","tool":"get_weather","arguments":{"city":"Paris","days":3},"turn_id":"turn_1","round":2,"model":"qwen3"}`
	if diff := cmp.Diff(wantBody, string(r.body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	for k, v := range map[string]string{
		"Content-Type":      "application/json",
		"User-Agent":        "toolstream",
		"X-Request-Id":      "call_1", // the protocol header wins over the tool's
		"Authorization":     "Bearer tok",
		"Webhook-Id":        "call_1",
		"Webhook-Timestamp": "1800000000",
	} {
		if got := r.header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	// Round trip: what the receiver got verifies with the exported helper.
	if err := toolhost.VerifySignature(secret, r.header, r.body, now.Add(time.Minute), 0); err != nil {
		t.Errorf("VerifySignature: %v", err)
	}
	if err := toolhost.VerifySignature("whsec_b3RoZXI=", r.header, r.body, now, 0); !errors.Is(err, toolhost.ErrSignatureMismatch) {
		t.Errorf("VerifySignature with another secret = %v, want ErrSignatureMismatch", err)
	}
}

func TestWebhookUnsignedWithoutSecret(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { got <- r.Header.Clone() })
	h := newHost(t, []config.Tool{weatherTool(srv.URL)}, toolhost.Options{})
	execute(t, h, weatherCall(`{"city":"Paris"}`))
	hdr := <-got
	for _, k := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
		if v := hdr.Get(k); v != "" {
			t.Errorf("header %s = %q without a secret, want none", k, v)
		}
	}
}

// TestExecuteErrors covers the error codes a call can end with before or
// at the webhook. TIMEOUT and retries are in webhook_test.go (synctest).
func TestExecuteErrors(t *testing.T) {
	status := func(code int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(code)
			io.WriteString(w, body)
		}
	}
	hangUp := func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	tests := []struct {
		name     string
		handler  http.HandlerFunc // nil: the webhook points at a closed port
		call     toolhost.Call
		wantCode string
		wantMsg  []string // substrings of the message
	}{
		{"unknown tool", status(200, "{}"), toolhost.Call{ID: "c", Name: "get_wether", Arguments: json.RawMessage(`{}`)},
			toolhost.CodeToolNotFound, []string{`unknown tool "get_wether"`, "available tools: get_weather, search"}},
		{"missing parameter", status(200, "{}"), weatherCall(`{"days": 2}`),
			toolhost.CodeMissingParameter, []string{`missing required parameter "city" (string)`}},
		{"invalid parameter", status(200, "{}"), weatherCall(`{"city": "Paris", "days": "many"}`),
			toolhost.CodeInvalidParameter, []string{`parameter "days": expected integer, got string "many"`}},
		{"arguments not JSON", status(200, "{}"), weatherCall(`{"city": "Pa`),
			toolhost.CodeInvalidParameter, []string{"not a JSON object"}},
		{"server error", status(500, "database\n  is down"), weatherCall(`{"city": "Paris"}`),
			toolhost.CodeAPIError, []string{"500 Internal Server Error", "database is down"}},
		{"not found", status(404, ""), weatherCall(`{"city": "Paris"}`),
			toolhost.CodeAPIError, []string{"404 Not Found"}},
		{"long error body excerpted", status(400, strings.Repeat("é", 1000)), weatherCall(`{"city": "Paris"}`),
			toolhost.CodeAPIError, []string{"400 Bad Request", strings.Repeat("é", 256) + " …"}},
		{"connection refused", nil, weatherCall(`{"city": "Paris"}`),
			toolhost.CodeExecutionFailed, []string{"calling the webhook:", "refused"}},
		{"hang-up after the request", hangUp, weatherCall(`{"city": "Paris"}`),
			toolhost.CodeExecutionFailed, []string{"calling the webhook:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := closed.URL
			if tt.handler != nil {
				url = serve(t, tt.handler).URL
			}
			search := config.Tool{Name: "search", Webhook: &config.Webhook{URL: url}}
			h := newHost(t, []config.Tool{weatherTool(url), search}, toolhost.Options{})
			res := execute(t, h, tt.call)
			if res.Err == nil {
				t.Fatalf("Err = nil, want %s (content %q)", tt.wantCode, res.Content)
			}
			if res.Err.Code != tt.wantCode || res.Status != toolhost.StatusError {
				t.Errorf("code %s status %s, want %s error", res.Err.Code, res.Status, tt.wantCode)
			}
			for _, m := range tt.wantMsg {
				if !strings.Contains(res.Err.Message, m) {
					t.Errorf("message %q lacks %q", res.Err.Message, m)
				}
			}
			if strings.Contains(res.Err.Message, url) {
				t.Errorf("message %q repeats the webhook URL", res.Err.Message)
			}
			if res.CallID != tt.call.ID || res.Name != tt.call.Name || res.Content != "" {
				t.Errorf("result %+v does not describe the call", res)
			}
		})
	}
}

func TestResultShapes(t *testing.T) {
	tests := []struct {
		name, contentType, body string
		max                     config.Size
		want                    toolhost.Result
	}{
		{"JSON object compacted", "application/json", "{\n  \"a\": [1, 2]\n}\n", 0,
			toolhost.Result{Content: `{"a":[1,2]}`, IsJSON: true}},
		{"JSON array without content type", "text/plain", `[1, 2]`, 0,
			toolhost.Result{Content: `[1,2]`, IsJSON: true}},
		{"JSON scalar declared JSON", "application/problem+json", `42`, 0,
			toolhost.Result{Content: `42`, IsJSON: true}},
		{"scalar as text stays text", "text/plain", `42`, 0,
			toolhost.Result{Content: `42`}},
		{"plain text", "text/plain; charset=utf-8", "Sunny, 21°C\n", 0,
			toolhost.Result{Content: "Sunny, 21°C\n"}},
		{"broken JSON is text", "application/json", `{"a":`, 0,
			toolhost.Result{Content: `{"a":`}},
		{"empty body", "", "", 0,
			toolhost.Result{}},
		{"invalid UTF-8 replaced", "text/plain", "a\xffb", 0,
			toolhost.Result{Content: "a\uFFFDb"}},
		{"exactly the limit is whole", "text/plain", "0123456789", 10,
			toolhost.Result{Content: "0123456789"}},
		{"cut at a rune boundary", "text/plain", "aééééééé", 10, toolhost.Result{
			Content:   "aéééé\n[toolstream: result truncated at 9 bytes (max_result_bytes); the rest was dropped]",
			Truncated: true}},
		{"cut JSON becomes text", "application/json", `{"a":"0123456789"}`, 8, toolhost.Result{
			Content:   `{"a":"01` + "\n[toolstream: result truncated at 8 bytes (max_result_bytes); the rest was dropped]",
			Truncated: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				io.WriteString(w, tt.body)
			})
			tool := weatherTool(srv.URL)
			tool.MaxResultBytes = tt.max
			h := newHost(t, []config.Tool{tool}, toolhost.Options{})
			res := execute(t, h, weatherCall(`{"city":"Paris"}`))
			got := toolhost.Result{Content: res.Content, IsJSON: res.IsJSON, Truncated: res.Truncated}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if res.Status != toolhost.StatusOK || res.Err != nil {
				t.Errorf("status %s err %v, want ok", res.Status, res.Err)
			}
		})
	}
}

func TestRedirectNotFollowed(t *testing.T) {
	var mu sync.Mutex
	targetHits := 0
	target := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		targetHits++
		mu.Unlock()
		io.WriteString(w, `{"ok":true}`)
	})
	for _, code := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL, code)
		})
		// A caller's client that would follow redirects is overridden.
		h := newHost(t, []config.Tool{weatherTool(srv.URL)}, toolhost.Options{Client: &http.Client{}})
		res := execute(t, h, weatherCall(`{"city":"Paris"}`))
		if res.Err == nil || res.Err.Code != toolhost.CodeAPIError ||
			!strings.Contains(res.Err.Message, http.StatusText(code)) ||
			!strings.Contains(res.Err.Message, "redirects are not followed") {
			t.Errorf("%d: result %+v, want API_ERROR naming the status", code, res.Err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if targetHits != 0 {
		t.Errorf("redirect target hit %d times, want 0", targetHits)
	}
}

func TestCancelledContext(t *testing.T) {
	started := make(chan struct{})
	observed := make(chan error, 1)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		// Read the body first, as receivers do: net/http notices a client
		// that left only once the request body is consumed.
		io.ReadAll(r.Body)
		close(started)
		<-r.Context().Done()
		observed <- r.Context().Err()
	})
	h := newHost(t, []config.Tool{weatherTool(srv.URL)}, toolhost.Options{})

	ctx, cancel := context.WithCancel(t.Context())
	type out struct {
		res toolhost.Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := h.Execute(ctx, weatherCall(`{"city":"Paris","days":"2"}`))
		done <- out{res, err}
	}()
	<-started
	cancel()
	o := <-done

	if !errors.Is(o.err, context.Canceled) {
		t.Errorf("error = %v, want one wrapping context.Canceled", o.err)
	}
	if o.res.Status != toolhost.StatusCancelled || o.res.Err == nil || o.res.Err.Code != toolhost.CodeCancelled {
		t.Errorf("result status %s err %v, want cancelled CANCELLED", o.res.Status, o.res.Err)
	}
	if string(o.res.Arguments) != `{"city":"Paris","days":2}` {
		t.Errorf("Arguments = %s, want the coerced ones", o.res.Arguments)
	}
	if err := <-observed; err == nil {
		t.Error("the webhook's request context was not cancelled")
	}
}

func TestAlreadyCancelledSendsNothing(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		t.Error("the webhook was called with a cancelled context")
	})
	h := newHost(t, []config.Tool{weatherTool(srv.URL)}, toolhost.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res, err := h.Execute(ctx, weatherCall(`{"city":"Paris"}`))
	if !errors.Is(err, context.Canceled) || res.Status != toolhost.StatusCancelled {
		t.Errorf("Execute = %v, %v; want cancelled", res.Status, err)
	}
}

func TestSecretsStayOut(t *testing.T) {
	const (
		secret = "s3cr3t-signing-key"
		token  = "Bearer t0k3n-value"
		query  = "qu3ry-token"
	)
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	failing := serve(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) })

	var results []string
	for _, url := range []string{closed.URL + "/?key=" + query, failing.URL + "/?key=" + query} {
		tool := weatherTool(url)
		tool.Webhook.Secret = secret
		tool.Webhook.Headers = map[string]config.Secret{"Authorization": token}
		h := newHost(t, []config.Tool{tool}, toolhost.Options{Logger: logger})
		res := execute(t, h, weatherCall(`{"city":"Paris"}`))
		b, _ := json.Marshal(res)
		results = append(results, string(b))
	}
	if _, err := toolhost.New([]config.Tool{{Name: "x", Webhook: &config.Webhook{URL: "http://h", Secret: "whsec_" + secret}}}, toolhost.Options{}); err == nil ||
		strings.Contains(err.Error(), secret) {
		t.Errorf("New with a bad secret = %v; want an error without the secret", err)
	}
	for _, s := range []string{secret, "t0k3n-value", query} {
		if strings.Contains(logs.String(), s) {
			t.Errorf("log contains %q:\n%s", s, logs.String())
		}
		for _, r := range results {
			if strings.Contains(r, s) {
				t.Errorf("result contains %q: %s", s, r)
			}
		}
	}
	if logs.Len() == 0 {
		t.Error("no debug log line was written")
	}
}
