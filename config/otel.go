package config

// Otel configures OpenTelemetry tracing (docs/operations.md): a span per turn,
// per round and per tool call, with the GenAI semantic-convention attributes,
// under a span per HTTP request. Off by default; while off no tracer exists and
// the turn path records nothing.
type Otel struct {
	// Enabled turns tracing on. Default false.
	Enabled bool `yaml:"enabled"`
	// Exporter is how spans leave the process: "otlp_http" (OTLP over
	// HTTP with protobuf, the default), the one built.
	Exporter string `yaml:"exporter"`
	// Endpoint is the collector's OTLP/HTTP base URL, e.g.
	// "http://127.0.0.1:4318"; spans go to Endpoint + "/v1/traces".
	// Empty: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
	// OTEL_EXPORTER_OTLP_ENDPOINT when set, else http://localhost:4318.
	Endpoint string `yaml:"endpoint"`
	// Headers are sent with every export, e.g. a hosted collector's API
	// key.
	Headers map[string]Secret `yaml:"headers"`
	// ServiceName is the service.name of every span. Default "toolstream".
	ServiceName string `yaml:"service_name"`
	// SampleRatio is the share of traces recorded, from 0 to 1; a request
	// whose traceparent says its caller records the trace is recorded
	// whatever the ratio. Default 1.
	SampleRatio float64 `yaml:"sample_ratio"`
}

// Exporters of otel.exporter.
const ExporterOTLPHTTP = "otlp_http"

func defaultOtel() Otel {
	return Otel{Exporter: ExporterOTLPHTTP, ServiceName: "toolstream", SampleRatio: 1}
}

func (v *validator) otel(o Otel) {
	switch o.Exporter {
	case ExporterOTLPHTTP:
	case "otlp_grpc", "otlp", "stdout", "console", "zipkin", "jaeger":
		v.add("otel.exporter", "%s is not built (use otlp_http: OTLP over HTTP, which every OpenTelemetry collector accepts on port 4318)", o.Exporter)
	default:
		v.add("otel.exporter", "unknown value %q (want otlp_http)", o.Exporter)
	}
	if o.Endpoint != "" {
		v.httpURL("otel.endpoint", o.Endpoint)
	}
	v.headers("otel.headers", secretValues(o.Headers))
	if o.ServiceName == "" {
		v.add("otel.service_name", "must not be empty (leave it out for toolstream)")
	}
	if o.SampleRatio < 0 || o.SampleRatio > 1 {
		v.add("otel.sample_ratio", "must be from 0 to 1, got %g", o.SampleRatio)
	}
}
