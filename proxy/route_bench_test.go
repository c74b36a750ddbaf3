package proxy_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/proxy/wiring"
	"github.com/toolstream/toolstream/toolhost"
)

// benchRoute is one route of the route benchmarks: a plain streamed turn
// as the SDKs send it, and the event its stream ends with.
type benchRoute struct{ name, path, body, end string }

var (
	chatRoute      = benchRoute{"chat", "/v1/chat/completions", `{"model":"bench","stream":true,"messages":[{"role":"user","content":"add a task"}]}`, "data: [DONE]"}
	responsesRoute = benchRoute{"responses", "/v1/responses", `{"model":"bench","stream":true,"input":"add a task"}`, "event: response.completed"}
	messagesRoute  = benchRoute{"messages", "/v1/messages", `{"model":"bench","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"add a task"}]}`, "event: message_stop"}
)

// BenchmarkRouteStream is one whole streamed answer of 64 chunks on each
// route, through loopback as toolstream-bench's ts-pass, ts-resp and
// ts-msg ask for it, store left to its default and kept in in-memory
// storage as its targets keep it: the per-stream costs the chunk-path
// benchmarks leave out — the request, the events that open and close an
// answer, what a stored response keeps. One op is one stream; the
// client's reading is in it too.
func BenchmarkRouteStream(b *testing.B) {
	benchRoutes(b, nil, chatRoute, responsesRoute, messagesRoute)
}

// BenchmarkRouteStreamText is BenchmarkRouteStream in text mode with a
// server tool the model does not call, as toolstream-bench's ts-text
// runs it: the tools taught in the prompt, the detector over every
// chunk, the turn's mailbox and the interruptible upstream read.
func BenchmarkRouteStreamText(b *testing.B) {
	text := func(cfg *config.Config, upURL string) {
		cfg.Upstreams[0].ToolMode, cfg.Upstreams[0].TextFormat = config.ToolModeText, config.TextFormatHermes
		cfg.Tools = []config.Tool{{Name: "create_task", Description: "Create a task.", Webhook: &config.Webhook{URL: upURL + "/create_task"}}}
	}
	benchRoutes(b, text, chatRoute, messagesRoute)
}

// benchRoutes serves the proxy, with what configure changes in its
// config, in front of an upstream that answers 64 chunks of prose, and
// runs one sub-benchmark per route.
func benchRoutes(b *testing.B, configure func(cfg *config.Config, upURL string), routes ...benchRoute) {
	parts := make([]string, 64)
	for i := range parts {
		w := "w" + strconv.Itoa(i) + " " // as toolstream-bench's upstream words them
		parts[i] = w + strings.Repeat("x", 16-len(w))
	}
	round := upstreamtest.Round{Events: upstreamtest.Text("chatcmpl-1", "bench", parts...)}
	up := upstreamtest.NewFunc(func(upstreamtest.Request) upstreamtest.Round { return round })
	defer up.Close()
	cfg := config.Default()
	u := config.DefaultUpstreamEntry()
	u.Name, u.BaseURL, u.Models = "up", up.URL, config.Models("*")
	cfg.Upstreams = []config.Upstream{u}
	cfg.Storage.InMemory = true
	if configure != nil {
		configure(&cfg, up.URL)
	}
	st, err := wiring.Open(b.Context(), cfg.Storage, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var host *toolhost.Host
	if len(cfg.Tools) > 0 {
		if host, err = toolhost.New(cfg.Tools, st.Host(toolhost.Options{})); err != nil {
			b.Fatal(err)
		}
		defer host.Close()
	}
	p, err := proxy.New(&cfg, st.Proxy(proxy.Options{}, host, nil))
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	srv := httptest.NewServer(p)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	for _, route := range routes {
		b.Run(route.name, func(b *testing.B) {
			var body bytes.Buffer // the client's, reused: its growth is no route's
			b.ReportAllocs()
			for b.Loop() {
				resp, err := client.Post(srv.URL+route.path, "application/json", strings.NewReader(route.body))
				if err != nil {
					b.Fatal(err)
				}
				body.Reset()
				_, err = body.ReadFrom(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(body.Bytes()[max(0, body.Len()-4096):], []byte(route.end)) {
					b.Fatalf("%d %v: %s", resp.StatusCode, err, body.Bytes())
				}
			}
		})
	}
}
