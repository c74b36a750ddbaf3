package toolhost_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// instant answers every call at once, so that a benchmark of Execute
// measures the call path, not a network.
type instant struct{}

func (instant) Execute(context.Context, toolhost.Call, json.RawMessage) toolhost.Outcome {
	return toolhost.Outcome{Content: `{"temp_c":21,"sky":"clear"}`, IsJSON: true}
}

// benchHost is a host whose get_weather runs in process, held to rules
// (nil: none).
func benchHost(b *testing.B, rules []config.Policy) *toolhost.Host {
	h := newHost(b, nil, toolhost.Options{Policies: rules})
	tool := toolhost.ToolFromConfig(weatherTool("http://unused"), "mcp:bench")
	if err := h.SetSource("mcp:bench", []toolhost.Registration{{Tool: tool, Exec: instant{}}}); err != nil {
		b.Fatal(err)
	}
	return h
}

func benchCalls(b *testing.B, h *toolhost.Host) {
	call := weatherCall(`{"city":"Paris","days":"3"}`)
	call.Origin = &toolhost.Origin{KeyID: "app", Source: "chat"}
	b.ReportAllocs()
	for b.Loop() {
		res, err := h.Execute(b.Context(), call)
		if err != nil || res.Err != nil {
			b.Fatal(err, res.Err)
		}
	}
}

// BenchmarkExecuteInProcess is the call path of a turn without policies:
// lookup, coercion and validation, the executor, the result. Policies
// must not cost it anything.
func BenchmarkExecuteInProcess(b *testing.B) {
	benchCalls(b, benchHost(b, nil))
}
