package proxy_test

import (
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestMessagesLeftOut: a Messages request with tools and blocks the proxy
// cannot honour runs without them — never a 400 — and each kind is logged
// once (route, key, what), not once per request.
func TestMessagesLeftOut(t *testing.T) {
	ok := textRound("c1", "Hi.")
	up := upstreamtest.New(ok, ok)
	logs := &logRecords{}
	e := serve(t, upstreamConfig(up.URL), up, proxy.Options{Logger: slog.New(logs)})
	const body = `{"model":"m","max_tokens":100,"stream":true,` +
		`"tools":[{"name":"Read","input_schema":{"type":"object"}},{"type":"bash_20250124","name":"bash"},{"type":"web_search_20250305","name":"web_search"}],` +
		`"messages":[{"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}},{"type":"text","text":"hi"}]}]}`
	for range 2 {
		resp := e.do(t, http.MethodPost, "/v1/messages", body)
		if got := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(got, "event: message_stop") {
			t.Fatalf("status %d: %s", resp.StatusCode, got)
		}
	}
	for i, r := range up.Requests() {
		if got := toolNames(t, r.Body); !slices.Equal(got, []string{"Read"}) {
			t.Errorf("upstream request %d offered %q, want only Read", i+1, got)
		}
	}
	var kinds []string
	for _, r := range logs.find("left out of the request") {
		if r["route"] != "/v1/messages" {
			t.Errorf("logged route %q", r["route"])
		}
		kinds = append(kinds, r["left_out"])
	}
	if want := []string{"block document", "tool bash_20250124", "hosted tool web_search"}; !slices.Equal(kinds, want) {
		t.Errorf("logged %q, want %q once each", kinds, want)
	}
}
