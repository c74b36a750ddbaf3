package proxy_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost"
)

// traceRounds is a tool turn: round 1 calls create_task and a tool that
// does not exist, round 2 answers. The upstream names its model
// differently from the client, as an alias would, and reports usage.
func traceRounds() []upstreamtest.Round {
	const model = "m-2026-01"
	r1 := upstreamtest.Round{Events: append(upstreamtest.Text("c1", model, "On it. ",
		call("create_task", `{"title":"Gym"}`), call("nope", `{}`)), upstreamtest.Usage("c1", model, 10, 5))}
	r2 := upstreamtest.Round{Events: append(upstreamtest.Text("c2", model, "Added Gym."), upstreamtest.Usage("c2", model, 30, 3))}
	return []upstreamtest.Round{r1, r2}
}

// traceparent is a caller's W3C trace context, sampled.
const (
	callerTrace   = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerParent  = "00f067aa0ba902b7"
	traceparent   = "00-" + callerTrace + "-" + callerParent + "-01"
	streamRequest = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"go"}]}`
)

// TestTracing: a tool turn makes the HTTP server span, under it the turn
// (invoke_agent), under that a chat span per round and, under round 1,
// an execute_tool span per call, with the GenAI semantic-convention
// attributes; the caller's traceparent is joined and carried on to the
// upstream.
func TestTracing(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(t.Context()) })
	p := newParts(t, turnConfig(""), traceRounds())
	e := p.serve(t, proxy.Options{Tools: p.host(t, toolhost.Options{}), Tracing: tp})

	body := readAll(t, e.do(t, "POST", "/v1/chat/completions", streamRequest, "traceparent: "+traceparent))
	if !strings.Contains(body, "data: [DONE]") {
		t.Fatalf("the turn did not finish:\n%s", body)
	}
	e.srv.Close() // waits for the handler, so every span has ended

	spans := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		spans[s.Name()] = append(spans[s.Name()], s)
		if got := s.SpanContext().TraceID().String(); got != callerTrace {
			t.Errorf("span %q in trace %s, want the caller's %s", s.Name(), got, callerTrace)
		}
	}
	one := func(name string, n int) []sdktrace.ReadOnlySpan {
		t.Helper()
		if len(spans[name]) != n {
			t.Fatalf("%d spans %q, want %d; have %v", len(spans[name]), name, n, names(spans))
		}
		return spans[name]
	}
	server := one("POST /v1/chat/completions", 1)[0]
	turn := one("invoke_agent toolstream", 1)[0]
	rounds := one("chat m", 2)
	tools := one("execute_tool create_task", 1)
	missing := one("execute_tool nope", 1)[0]

	if server.Parent().SpanID().String() != callerParent {
		t.Errorf("server span's parent %s, want the caller's %s", server.Parent().SpanID(), callerParent)
	}
	parent := func(child, want sdktrace.ReadOnlySpan) {
		t.Helper()
		if child.Parent().SpanID() != want.SpanContext().SpanID() {
			t.Errorf("%q is not under %q", child.Name(), want.Name())
		}
	}
	parent(turn, server)
	parent(rounds[0], turn)
	parent(rounds[1], turn)
	parent(tools[0], rounds[0])
	parent(missing, rounds[0])

	attrs := func(s sdktrace.ReadOnlySpan, keys ...string) map[string]string {
		got := map[string]string{}
		for _, kv := range s.Attributes() {
			for _, k := range keys {
				if string(kv.Key) == k {
					got[k] = kv.Value.Emit()
				}
			}
		}
		return got
	}
	check := func(s sdktrace.ReadOnlySpan, want map[string]string) {
		t.Helper()
		keys := make([]string, 0, len(want))
		for k := range want {
			keys = append(keys, k)
		}
		if diff := cmp.Diff(want, attrs(s, keys...)); diff != "" {
			t.Errorf("%q attributes (-want +got):\n%s", s.Name(), diff)
		}
	}
	check(turn, map[string]string{
		"gen_ai.operation.name":          "invoke_agent",
		"gen_ai.agent.name":              "toolstream",
		"gen_ai.request.model":           "m",
		"gen_ai.response.finish_reasons": `["stop"]`,
		"gen_ai.usage.input_tokens":      "40",
		"gen_ai.usage.output_tokens":     "8",
		"toolstream.upstream":            "up",
		"toolstream.rounds":              "2",
		"toolstream.tool_calls":          "2",
	})
	check(rounds[0], map[string]string{
		"gen_ai.operation.name":          "chat",
		"gen_ai.request.model":           "m",
		"gen_ai.response.model":          "m-2026-01",
		"gen_ai.response.id":             "c1",
		"gen_ai.response.finish_reasons": `["stop"]`,
		"gen_ai.usage.input_tokens":      "10",
		"gen_ai.usage.output_tokens":     "5",
		"toolstream.round":               "1",
	})
	check(rounds[1], map[string]string{
		"gen_ai.response.id":         "c2",
		"gen_ai.usage.input_tokens":  "30",
		"gen_ai.usage.output_tokens": "3",
		"toolstream.round":           "2",
	})
	callID := attrs(tools[0], "gen_ai.tool.call.id")["gen_ai.tool.call.id"]
	if !strings.HasPrefix(callID, "call_") || !strings.Contains(body, `"call_id":"`+callID+`"`) {
		t.Errorf("gen_ai.tool.call.id %q is not the call id the client saw", callID)
	}
	check(tools[0], map[string]string{
		"gen_ai.operation.name":  "execute_tool",
		"gen_ai.tool.name":       "create_task",
		"toolstream.tool.status": "ok",
	})
	check(missing, map[string]string{
		"gen_ai.tool.name":       "nope",
		"error.type":             "TOOL_NOT_FOUND",
		"toolstream.tool.status": "error",
	})
	if missing.Status().Code != codes.Error || tools[0].Status().Code == codes.Error {
		t.Errorf("statuses: missing tool %v, create_task %v", missing.Status(), tools[0].Status())
	}

	// The upstream is handed the trace, under its round.
	for i, req := range e.up.Requests() {
		want := "00-" + callerTrace + "-" + rounds[i].SpanContext().SpanID().String() + "-01"
		if got := req.Header.Get("traceparent"); got != want {
			t.Errorf("round %d upstream traceparent %q, want %q", i+1, got, want)
		}
	}
}

// TestTracingOff: without Options.Tracing nothing is traced, not even
// through a global tracer provider, and no trace context reaches the
// upstream.
func TestTracingOff(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(t.Context()) })
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })

	p := newParts(t, turnConfig(""), traceRounds())
	e := p.serve(t, proxy.Options{Tools: p.host(t, toolhost.Options{})})
	body := readAll(t, e.do(t, "POST", "/v1/chat/completions", streamRequest, "traceparent: "+traceparent))
	if !strings.Contains(body, "data: [DONE]") {
		t.Fatalf("the turn did not finish:\n%s", body)
	}
	e.srv.Close()
	if n := len(rec.Ended()); n != 0 {
		t.Errorf("%d spans recorded with tracing off", n)
	}
	for _, req := range e.up.Requests() {
		if h := req.Header.Get("traceparent"); h != "" {
			t.Errorf("upstream got traceparent %q with tracing off", h)
		}
	}
}

func names(spans map[string][]sdktrace.ReadOnlySpan) []string {
	var out []string
	for n := range spans {
		out = append(out, n)
	}
	return out
}
