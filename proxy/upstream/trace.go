package upstream

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// injectTrace adds ctx's trace to an outgoing request's headers, so that a
// traced upstream continues it. Without a span in ctx (tracing off) it
// does nothing.
func injectTrace(ctx context.Context, h http.Header) {
	if trace.SpanContextFromContext(ctx).IsValid() {
		propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(h))
	}
}

// firstByte observes the time to the first byte read from an upstream's
// answer. It is read by one goroutine, the round's reader.
type firstByte struct {
	io.ReadCloser
	start time.Time
	obs   prometheus.Observer
	seen  bool
}

func (f *firstByte) Read(p []byte) (int, error) {
	n, err := f.ReadCloser.Read(p)
	if n > 0 && !f.seen {
		f.seen = true
		f.obs.Observe(time.Since(f.start).Seconds())
	}
	return n, err
}
