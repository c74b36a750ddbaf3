package proxy_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// rawDo writes req to the proxy byte for byte on a connection of its own,
// so that no client cleans its path or re-frames its body, and reads one
// response within wait. It returns the response, its body and how long
// the answer took; a proxy that does not answer within wait fails the
// test.
func rawDo(t *testing.T, e *env, req string, wait time.Duration) (*http.Response, string, time.Duration) {
	t.Helper()
	conn, err := net.Dial("tcp", e.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	return readRaw(t, conn, start, wait)
}

// readRaw reads one response from conn, failing the test when none comes
// within wait of start.
func readRaw(t *testing.T, conn net.Conn, start time.Time, wait time.Duration) (*http.Response, string, time.Duration) {
	t.Helper()
	conn.SetReadDeadline(start.Add(wait))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer within %s: %v", wait, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return resp, string(b), time.Since(start)
}

// wantAPIError checks that body is OpenAI's error shape with status
// wantStatus, type typ and code code, and returns it.
func wantAPIError(t *testing.T, status int, body string, wantStatus int, typ, code string) openAIError {
	t.Helper()
	e := decodeError(t, body)
	gotCode, _ := e.Error.Code.(string)
	if status != wantStatus || e.Error.Type != typ || gotCode != code {
		t.Errorf("got %d %s/%s %q, want %d %s/%s", status, e.Error.Type, gotCode, e.Error.Message, wantStatus, typ, code)
	}
	return e
}

// TestPassThroughRefusesDotSegments: with base_url under a path
// (/tenant-a/v1), no request path, however it is spelled, makes the proxy
// send a path with a dot-segment: an upstream (or a server in front of
// it) that resolves dot-segments would take it outside base_url's path,
// carrying the upstream's key. Each hostile form is refused with a 400
// before anything is sent; ordinary paths, dots inside names included,
// still pass.
func TestPassThroughRefusesDotSegments(t *testing.T) {
	e := newEnv(t, nil, func(c *config.Config) {
		c.Upstreams[0].BaseURL = strings.TrimSuffix(c.Upstreams[0].BaseURL, "/v1") + "/tenant-a/v1"
	})
	e.up.Handle("/tenant-a/v1/embeddings", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })

	hostile := []string{
		"/v1/../../tenant-b/v1/models",
		"/v1/./../admin",
		"/v1/..",
		"/v1/.",
		"/v1/embeddings/..",
		"/v1/embeddings/../../../x",
		"/v1/%2e%2e/%2e%2e/tenant-b/v1/models",
		"/v1/%2E./admin",
		"/v1/.%2E/admin",
		"/v1/%2e/models",
		"/v1/..%2f..%2ftenant-b/v1/models",
		"/v1/..%2F..%2Ftenant-b",
		"/v1/models%2f..%2f..%2fadmin",
		"/v1/%2e%2e%2f%2e%2e%2fadmin",
		"/v1/..%5c..%5cadmin",         // a backslash some servers read as a slash
		"/v1/..;/..;/admin",           // Tomcat and Spring drop ";params" before resolving
		"/v1/%252e%252e/%252e%252e/x", // decoded twice by a careless server
		"/v1/embeddings?x=/../../admin",
	}
	for _, p := range hostile {
		resp, body, _ := rawDo(t, e, "GET "+p+" HTTP/1.1\r\nHost: proxy\r\nConnection: close\r\n\r\n", 10*time.Second)
		if strings.Contains(p, "?") {
			// A query is not a path: it passes unchanged.
			if resp.StatusCode != 200 {
				t.Errorf("%s: got %d %s, want 200 (dots in the query are not path segments)", p, resp.StatusCode, body)
			}
			continue
		}
		got := wantAPIError(t, resp.StatusCode, body, 400, "invalid_request_error", "invalid_path")
		if strings.Contains(got.Error.Message, "tenant") || strings.Contains(got.Error.Message, e.up.URL) {
			t.Errorf("%s: the message %q names the upstream's path", p, got.Error.Message)
		}
	}
	for _, r := range e.up.Requests() {
		if !strings.HasPrefix(r.Path, "/tenant-a/v1/") || strings.Contains(r.Path, "..") {
			t.Errorf("upstream received %s %s", r.Method, r.Path)
		}
	}

	for _, p := range []string{"/v1/embeddings", "/v1/files/file-1.jsonl", "/v1/a..b/.c/d.", "/v1/models/org%2Fmodel"} {
		resp, body, _ := rawDo(t, e, "GET "+p+" HTTP/1.1\r\nHost: proxy\r\nConnection: close\r\n\r\n", 10*time.Second)
		if resp.StatusCode == 400 {
			t.Errorf("%s: refused: %s", p, body)
		}
	}
	reqs := e.up.Requests()
	var paths []string
	for _, r := range reqs {
		paths = append(paths, r.Path)
	}
	want := []string{
		"/tenant-a/v1/embeddings", // the query case
		"/tenant-a/v1/embeddings", "/tenant-a/v1/files/file-1.jsonl", "/tenant-a/v1/a..b/.c/d.", "/tenant-a/v1/models/org/model",
	}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("upstream received\n%q\nwant\n%q", paths, want)
	}
}

// TestClientCredentialsNeverReachUpstream: whatever credential headers a
// client sends, on any route, the upstream receives only its own
// api_key and the upstream's configured headers. A client that sends its
// toolstream key as x-api-key (as Anthropic's SDK does) or a session
// cookie must not hand it to a model server.
func TestClientCredentialsNeverReachUpstream(t *testing.T) {
	credentials := []string{
		"Authorization: Bearer client-key",
		"Api-Key: client-secret-1",
		"X-Api-Key: client-secret-2",
		"Cookie: session=client-secret-3",
		"Proxy-Authorization: Basic client-secret-4",
	}
	routes := []struct {
		method, path, body string
	}{
		{http.MethodPost, "/v1/embeddings", `{"model":"e","input":"hi"}`},
		{http.MethodGet, "/v1/files", ""},
		{http.MethodPost, "/v1/chat/completions", chatBody},
		{http.MethodPost, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`},
		{http.MethodGet, "/v1/models", ""},
	}
	for _, cred := range credentials {
		e := newEnv(t, []upstreamtest.Round{okRound, okRound}, func(c *config.Config) {
			c.Auth.Keys = config.PlainKeys("client-key")
			c.Upstreams[0].Headers = map[string]string{"X-Extra": "configured"}
		})
		e.up.Handle("/v1/embeddings", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })
		e.up.Handle("/v1/files", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })
		for _, rt := range routes {
			resp := e.do(t, rt.method, rt.path, rt.body, "Authorization: Bearer client-key", cred)
			if body := readAll(t, resp); resp.StatusCode != 200 {
				t.Errorf("%s %s with %s: %d %s", rt.method, rt.path, cred, resp.StatusCode, body)
			}
		}
		reqs := e.up.Requests()
		if len(reqs) < len(routes) {
			t.Errorf("%s: upstream saw %d requests, want at least %d", cred, len(reqs), len(routes))
		}
		for _, r := range reqs {
			for k, vs := range r.Header {
				for _, v := range vs {
					if strings.Contains(v, "client-") {
						t.Errorf("%s: %s %s reached the upstream with %s: %s", cred, r.Method, r.Path, k, v)
					}
				}
			}
			if got := r.Header.Get("Authorization"); got != "Bearer upstream-key" {
				t.Errorf("%s: %s %s: Authorization %q, want the upstream's own key", cred, r.Method, r.Path, got)
			}
			if got := r.Header.Get("X-Extra"); got != "configured" && r.Path != "/v1/models" {
				t.Errorf("%s: %s %s: configured header X-Extra %q, want it sent", cred, r.Method, r.Path, got)
			}
		}
	}
}
