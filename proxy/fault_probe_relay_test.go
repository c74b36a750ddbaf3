package proxy_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstream"
)

// TestProbeRelay: a non-streaming answer relayed without server tools is
// read whole before it is written, within a bound. One that breaks off
// before its Content-Length, or that grows past the bound, is a 502 in
// OpenAI's shape, not an empty or a cut reply.
func TestProbeRelay(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter)
		status int
		code   string
		says   string
	}{
		{"whole", func(w http.ResponseWriter) {
			io.WriteString(w, `{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi."},"finish_reason":"stop"}]}`)
		}, 200, "", `"content":"Hi."`},
		{"cut before its Content-Length", func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", "500")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, `{"id":"c1","object":"chat.completion","choi`)
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}, 502, "upstream_error", "broke off before its end"},
		{"larger than the bound", func(w http.ResponseWriter) {
			io.WriteString(w, `{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"`)
			chunk := strings.Repeat("a", 1<<20)
			for range upstream.MaxAnswer>>20 + 1 {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
			io.WriteString(w, `"}}]}`)
		}, 502, "upstream_answer_too_large", "more than " + strconv.Itoa(upstream.MaxAnswer) + " bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil, nil)
			e.up.Handle("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				tc.answer(w)
			})
			resp := e.do(t, http.MethodPost, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
			body := readAll(t, resp)
			if resp.StatusCode != tc.status || !strings.Contains(body, tc.says) {
				t.Fatalf("got %d %.300s; want %d saying %s", resp.StatusCode, body, tc.status, tc.says)
			}
			if tc.status != 200 {
				checkErrorShape(t, body, tc.code, "")
			}
		})
	}
}
