package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
)

// TestOtel: tracing is off unless asked for, its defaults are what the
// example documents, and values whose behaviour is not built are refused
// with the place and the fix.
func TestOtel(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse("t.yaml", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := config.Otel{Exporter: "otlp_http", ServiceName: "toolstream", SampleRatio: 1}
	if diff := cmp.Diff(want, cfg.Otel); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}

	cfg, err = config.Parse("t.yaml", []byte("otel:\n  enabled: true\n  endpoint: ${COLLECTOR}\n  headers: {X-Api-Key: \"${KEY}\"}\n  sample_ratio: 0.25\n"),
		env(map[string]string{"COLLECTOR": "https://otel.example.com:4318", "KEY": "k1"}))
	if err != nil {
		t.Fatal(err)
	}
	want = config.Otel{Enabled: true, Exporter: "otlp_http", Endpoint: "https://otel.example.com:4318",
		Headers: map[string]config.Secret{"X-Api-Key": "k1"}, ServiceName: "toolstream", SampleRatio: 0.25}
	if diff := cmp.Diff(want, cfg.Otel); diff != "" {
		t.Errorf("parsed (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"grpc not built", "otel:\n  exporter: otlp_grpc\n", []string{
			`t.yaml:2:13: otel.exporter: otlp_grpc is not built (use otlp_http: OTLP over HTTP, which every OpenTelemetry collector accepts on port 4318)`}},
		{"unknown exporter", "otel:\n  exporter: datadog\n", []string{
			`t.yaml:2:13: otel.exporter: unknown value "datadog" (want otlp_http)`}},
		{"endpoint without scheme", "otel:\n  endpoint: 127.0.0.1:4318\n", []string{
			`t.yaml:2:13: otel.endpoint: "127.0.0.1:4318" must start with http:// or https://`}},
		{"ratio over 1", "otel:\n  sample_ratio: 1.5\n", []string{
			`t.yaml:2:17: otel.sample_ratio: must be from 0 to 1, got 1.5`}},
		{"ratio not a number", "otel:\n  sample_ratio: half\n", []string{
			`t.yaml:2:17: otel.sample_ratio: want a number, got "half"`}},
		{"ratio NaN", "otel:\n  sample_ratio: .nan\n", []string{
			`t.yaml:2:17: otel.sample_ratio: want a number, got ".nan"`}},
		{"empty service name", "otel:\n  service_name: \"\"\n", []string{
			`t.yaml:2:17: otel.service_name: must not be empty (leave it out for toolstream)`}},
		{"header with a newline", "otel:\n  headers: {X-Key: \"${KEY}\"}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := problems(t, tc.src, map[string]string{"KEY": "a\nb"})
			if tc.want == nil {
				return // refused, whatever the words: a header that would split the request
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
