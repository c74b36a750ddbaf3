package proxy

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of toolstream's own spans.
const tracerName = "github.com/toolstream/toolstream"

// propagator reads and writes W3C traceparent and tracestate headers.
var propagator = propagation.TraceContext{}

// traced wraps h in a server span per request. A request carrying a
// traceparent joins its caller's trace. Probes and scrapes (/healthz,
// /readyz, /metrics) are left out: they would bury the turns.
func traced(h http.Handler, tp trace.TracerProvider) http.Handler {
	return otelhttp.NewHandler(h, "toolstream",
		otelhttp.WithTracerProvider(tp),
		otelhttp.WithPropagators(propagator),
		otelhttp.WithFilter(func(r *http.Request) bool { return !probePaths[r.URL.Path] }),
		otelhttp.WithSpanNameFormatter(spanName),
	)
}

var probePaths = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// routeNames are the routes whose path names a span as it is; others
// (ids in the path, pass-through) are named by their method alone, as the
// HTTP conventions ask when the route is not known.
var routeNames = map[string]bool{
	"/v1/chat/completions": true, "/v1/models": true, "/v1/actions": true,
	"/admin/calls": true, "/admin/tools": true,
}

func spanName(_ string, r *http.Request) string {
	if routeNames[r.URL.Path] {
		return r.Method + " " + r.URL.Path
	}
	return r.Method
}
