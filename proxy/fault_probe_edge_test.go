package proxy_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/toolhost/store"
)

// newGuardedEnv is newEnv served as cmd/toolstream serves it: on a
// listener that proxy.Listener watches.
func newGuardedEnv(t *testing.T, mutate func(*config.Config)) *env {
	t.Helper()
	e := newEnv(t, nil, mutate)
	srv := httptest.NewUnstartedServer(e.proxy)
	srv.Listener = proxy.Listener(srv.Config, srv.Listener)
	srv.Start()
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	e.srv = srv
	return e
}

// TestProbeSmuggling: a request whose framing two servers could read
// differently — Content-Length beside Transfer-Encoding: chunked, a
// folded header line, a bare LF — is answered 400 and its connection
// closed, so the request written behind it on the same connection (one
// that has no key: a 401 if it were read) is never answered. Plain
// requests on one connection are both answered, as before.
func TestProbeSmuggling(t *testing.T) {
	e := newGuardedEnv(t, withKeys("client-key"))
	e.up.Handle("/v1/embeddings", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, `{"object":"list","data":[]}`)
	})
	const (
		key    = "Authorization: Bearer client-key\r\n"
		behind = "GET /v1/models HTTP/1.1\r\nHost: proxy\r\n\r\n"
	)
	for _, tc := range []struct{ name, first string }{
		{"Content-Length and chunked", "POST /v1/embeddings HTTP/1.1\r\nHost: proxy\r\n" + key +
			"Content-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"},
		{"chunked and Content-Length", "POST /v1/embeddings HTTP/1.1\r\nHost: proxy\r\n" + key +
			"Transfer-Encoding: chunked\r\nContent-Type: application/json\r\ncontent-length: 0\r\n\r\n2\r\n{}\r\n0\r\n\r\n"},
		{"obs-fold", "GET /v1/models HTTP/1.1\r\nHost: proxy\r\n" + key + "X-Note: a\r\n b\r\n\r\n"},
		{"bare LF", "GET /v1/models HTTP/1.1\nHost: proxy\r\n" + key + "\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, br := dialRaw(t, e, tc.first+behind)
			resp := readOne(t, conn, br)
			body := readAll(t, resp)
			wantAPIError(t, resp.StatusCode, body, 400, "invalid_request_error", "ambiguous_framing")
			if !resp.Close {
				t.Error("the answer does not say Connection: close")
			}
			if next, err := http.ReadResponse(br, nil); err == nil {
				t.Errorf("the request behind it was answered too: %d", next.StatusCode)
			} else if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("the connection was not closed: %v", err)
			}
		})
	}

	t.Run("plain requests", func(t *testing.T) {
		conn, br := dialRaw(t, e, "POST /v1/embeddings HTTP/1.1\r\nHost: proxy\r\n"+key+
			"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"+behind)
		for _, want := range []int{200, 401} {
			resp := readOne(t, conn, br)
			if body := readAll(t, resp); resp.StatusCode != want {
				t.Errorf("got %d %s, want %d", resp.StatusCode, body, want)
			}
		}
	})
}

// dialRaw writes req byte for byte on a new connection to the proxy.
func dialRaw(t *testing.T, e *env, req string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", e.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	return conn, bufio.NewReader(conn)
}

// readOne reads the next response on conn.
func readOne(t *testing.T, conn net.Conn, br *bufio.Reader) *http.Response {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	return resp
}

// TestProbeHostileIDs: an id in the path that no id could be — a
// percent-encoded path, a NUL, 5,000 bytes, a character no id has — is a
// 400 on every route that takes one, and an id that could be one but is
// unknown a 404: never a 500 (SDKs retry those) and never the storage's
// words ("store: invalid id or name").
func TestProbeHostileIDs(t *testing.T) {
	e, _ := newKeysEnv(t, scopedConfig(""), nil, nil)
	admin := "Authorization: Bearer " + keysAdmin
	client := "Authorization: Bearer " + plainKey
	routes := []struct{ method, path, key, body string }{
		{"GET", "/v1/actions/{id}", admin, ""},
		{"POST", "/v1/actions/{id}/approve", admin, "{}"},
		{"POST", "/v1/actions/{id}/deny", client, "{}"},
		{"GET", "/admin/calls/{id}", admin, ""},
		{"GET", "/admin/tools/{id}", admin, ""},
		{"PUT", "/admin/tools/{id}", admin, `{"description":"d","webhook":{"url":"http://127.0.0.1:9/x"}}`},
		{"DELETE", "/admin/tools/{id}", admin, ""},
		{"GET", "/admin/keys/{id}", admin, ""},
		{"PATCH", "/admin/keys/{id}", admin, `{"models":["m"]}`},
		{"DELETE", "/admin/keys/{id}", admin, ""},
		{"GET", "/v1/responses/{id}", client, ""},
		{"DELETE", "/v1/responses/{id}", client, ""},
	}
	hostile := []string{"..%2F..", "..%2f..%2fadmin", strings.Repeat("a", 5000), "%00", "a%00b", "a%3Ab", "a%20b", "%E2%80%AE", "a%2Fb", "%25"}
	for _, rt := range routes {
		for _, id := range hostile {
			status, body := hostileDo(t, e.env, rt.method, strings.Replace(rt.path, "{id}", id, 1), rt.key, rt.body)
			if status != 400 && status != 404 || strings.Contains(body, "store") || strings.Contains(body, "internal") {
				t.Errorf("%s %s with id %.20q: %d %.200s", rt.method, rt.path, id, status, body)
			}
		}
		// Well-formed, unknown: 404 (a PUT of a tool creates it).
		if rt.method == "PUT" {
			continue
		}
		status, body := hostileDo(t, e.env, rt.method, strings.Replace(rt.path, "{id}", "unknown_1", 1), rt.key, rt.body)
		if status != 404 {
			t.Errorf("%s %s with an unknown id: %d %.200s", rt.method, rt.path, status, body)
		}
	}
}

// TestProbeEncodedID: an id that holds a character clients percent-encode
// (":", as encodeURIComponent writes it) is found whichever way it is
// sent.
func TestProbeEncodedID(t *testing.T) {
	e, db := newKeysEnv(t, scopedConfig(""), nil, nil)
	rec := store.CallRecord{ID: "tcr_a:1", TurnID: "turn_1", CallID: "c1", Tool: "create_task", Arguments: json.RawMessage(`{}`),
		Status: store.StatusOK, StartedAt: time.Unix(1800000000, 0)}
	if err := db.RecordCall(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"tcr_a:1", "tcr_a%3A1", "tcr_a%3a1"} {
		if status, body := hostileDo(t, e.env, "GET", "/admin/calls/"+id, "Authorization: Bearer "+keysAdmin, ""); status != 200 {
			t.Errorf("GET /admin/calls/%s: %d %.200s", id, status, body)
		}
	}
}

func hostileDo(t *testing.T, e *env, method, path, key, body string) (int, string) {
	t.Helper()
	head := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: proxy\r\n%s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", method, path, key, len(body))
	resp, got, _ := rawDo(t, e, head+body, 10*time.Second)
	return resp.StatusCode, got
}
