package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestTracingOff: with otel left at its defaults no provider is made and
// the process-wide one is left as it was.
func TestTracingOff(t *testing.T) {
	before := otel.GetTracerProvider()
	tp, err := newTracing(t.Context(), config.Default().Otel, slog.New(slog.DiscardHandler))
	if err != nil || tp != nil {
		t.Fatalf("newTracing with tracing off = %v, %v; want no provider", tp, err)
	}
	if otel.GetTracerProvider() != before {
		t.Error("the global tracer provider was replaced")
	}
}

// TestTracingExport: with tracing on, spans reach the configured OTLP/HTTP
// endpoint at /v1/traces with the configured headers and service.name.
func TestTracingExport(t *testing.T) {
	var mu sync.Mutex
	var got []*collectortrace.ExportTraceServiceRequest
	var headers []http.Header
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
			http.NotFound(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var req collectortrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			t.Errorf("export body: %v", err)
		}
		mu.Lock()
		got, headers = append(got, &req), append(headers, r.Header.Clone())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()

	cfg := config.Default().Otel
	cfg.Enabled, cfg.Endpoint, cfg.ServiceName = true, collector.URL+"/", "proxy-eu"
	cfg.Headers = map[string]config.Secret{"X-Api-Key": "collector-key"}
	tp, err := newTracing(t.Context(), cfg, slog.New(slog.DiscardHandler))
	if err != nil || tp == nil {
		t.Fatalf("newTracing = %v, %v", tp, err)
	}
	_, span := tp.Tracer("test").Start(t.Context(), "invoke_agent toolstream")
	span.End()
	stopTracing(tp, slog.New(slog.DiscardHandler)) // flushes

	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("%d exports, want 1", len(got))
	}
	if h := headers[0].Get("X-Api-Key"); h != "collector-key" {
		t.Errorf("X-Api-Key %q, want the configured header", h)
	}
	rs := got[0].GetResourceSpans()
	if len(rs) != 1 || len(rs[0].GetScopeSpans()) != 1 || len(rs[0].GetScopeSpans()[0].GetSpans()) != 1 {
		t.Fatalf("export = %v", got[0])
	}
	if n := rs[0].GetScopeSpans()[0].GetSpans()[0].GetName(); n != "invoke_agent toolstream" {
		t.Errorf("span %q", n)
	}
	service := ""
	for _, kv := range rs[0].GetResource().GetAttributes() {
		if kv.GetKey() == "service.name" {
			service = kv.GetValue().GetStringValue()
		}
	}
	if service != "proxy-eu" {
		t.Errorf("service.name %q, want proxy-eu", service)
	}
}

// TestTracingSampleRatio: a ratio of 0 records no trace of its own, but
// one the caller sampled (its traceparent) is still followed.
func TestTracingSampleRatio(t *testing.T) {
	cfg := config.Default().Otel
	cfg.Enabled, cfg.SampleRatio, cfg.Endpoint = true, 0, "http://127.0.0.1:1"
	tp, err := newTracing(t.Context(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stopTracing(tp, slog.New(slog.DiscardHandler)) // no span ends, so nothing is sent
	tr := tp.Tracer("test")
	if _, s := tr.Start(t.Context(), "root"); s.IsRecording() {
		t.Error("a root span was recorded at sample_ratio 0")
	}
	parent := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled, Remote: true,
	})
	if _, s := tr.Start(trace.ContextWithRemoteSpanContext(t.Context(), parent), "child"); !s.IsRecording() {
		t.Error("a span under a sampled caller was not recorded at sample_ratio 0")
	}
}

// TestServeTracing: serve with otel enabled exports a turn's spans, and
// the last ones are flushed when it stops.
func TestServeTracing(t *testing.T) {
	var mu sync.Mutex
	names := map[string]int{}
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req collectortrace.ExportTraceServiceRequest
		proto.Unmarshal(b, &req)
		mu.Lock()
		defer mu.Unlock()
		for _, rs := range req.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					names[s.GetName()]++
				}
			}
		}
	}))
	defer collector.Close()
	up := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "Hello")})
	t.Cleanup(up.Close)
	file := filepath.Join(t.TempDir(), "toolstream.yaml")
	writeFile(t, file, serveConfig(up.URL, "otel: {enabled: true, endpoint: \""+collector.URL+"\"}\n"))
	p := startServe(t, file)
	if got := p.open(t, "hi").rest(t); !done(got) {
		t.Fatalf("stream %q", got)
	}
	p.signal(t, syscall.SIGTERM)
	if code := p.exit(t); code != exitOK {
		t.Fatalf("exit %d\n%s", code, p.log)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"POST /v1/chat/completions", "invoke_agent toolstream", "chat m"} {
		if names[want] != 1 {
			t.Errorf("collector got %d spans %q; all: %v\n%s", names[want], want, names, p.log)
		}
	}
}
