package main

import (
	"context"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolstream/toolstream/config"
)

// newTracing builds the tracer provider cfg asks for: spans batched to an
// OTLP/HTTP collector, sampled by ratio unless the caller's traceparent
// decided. With tracing off it returns nil and installs nothing; the
// provider is handed to the proxy, never set as the process-wide one, so
// libraries using the global provider stay silent either way.
func newTracing(ctx context.Context, cfg config.Otel, log *slog.Logger) (*sdktrace.TracerProvider, error) {
	if !cfg.Enabled {
		return nil, nil
	}
	var opts []otlptracehttp.Option
	if cfg.Endpoint != "" {
		// The URL's scheme decides TLS; the path is the OTLP traces one.
		opts = append(opts, otlptracehttp.WithEndpointURL(strings.TrimRight(cfg.Endpoint, "/")+"/v1/traces"))
	}
	if len(cfg.Headers) > 0 {
		h := make(map[string]string, len(cfg.Headers))
		for k, v := range cfg.Headers {
			h[k] = v.Value()
		}
		opts = append(opts, otlptracehttp.WithHeaders(h))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, err
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		attribute.String("service.name", cfg.ServiceName),
		attribute.String("service.version", buildVersion()),
	))
	if err != nil {
		return nil, err
	}
	// A collector that is down must not go unnoticed, nor flood the log
	// through the stdlib logger the SDK would use.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("exporting traces", "error", err.Error())
	}))
	return sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(cfg.SampleRatio))),
	), nil
}

// stopTracing sends the spans still batched, for at most a few seconds:
// a collector that is down must not hold up the exit.
func stopTracing(tp *sdktrace.TracerProvider, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tp.Shutdown(ctx); err != nil {
		log.Warn("flushing traces at exit", "error", err.Error())
	}
}

// buildVersion is the module version go build stamped, or "(devel)".
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
