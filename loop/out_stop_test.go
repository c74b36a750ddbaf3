package loop_test

import (
	"context"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
)

// stopRecorder is a recorder that also hears stop sequences.
type stopRecorder struct {
	recorder
	seqs []string
}

func (r *stopRecorder) StopSequence(s string) error { r.seqs = append(r.seqs, s); return nil }

// TestEventsStopSequence tells an Out the stop sequence an
// upstream names (vLLM's stop_reason, SGLang's matched_stop) once, before
// the finish; a stop token's id or a finish other than stop says nothing.
func TestEventsStopSequence(t *testing.T) {
	tests := []struct {
		name, last string
		want       []string
	}{
		{"vllm", `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop","stop_reason":"END"}]}`, []string{"END"}},
		{"sglang", `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop","matched_stop":"END"}]}`, []string{"END"}},
		{"token id", `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop","stop_reason":151645}]}`, nil},
		{"length", `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"length","stop_reason":"END"}]}`, nil},
		{"none", chunk(`{}`, "stop"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := loop.ParseRequest([]byte(`{"model":"m","stream":true,"stop":["END"],"messages":[{"role":"user","content":"go"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			lc := config.Default().Loop
			lc.Keepalive = 0
			turn := &loop.Turn{Request: req, Upstream: &scripted{rounds: [][]string{{chunk(`{"role":"assistant","content":"1 2"}`, ""), tt.last, "[DONE]"}}, mark: -1},
				UpstreamName: "mem", Format: "hermes", Loop: lc, Mode: config.ToolModeText}
			rec := &stopRecorder{}
			if _, err := (&loop.Runner{}).Run(context.Background(), turn, rec); err != nil {
				t.Fatal(err)
			}
			if len(rec.seqs) != len(tt.want) || len(tt.want) > 0 && rec.seqs[0] != tt.want[0] {
				t.Errorf("stop sequences %q, want %q", rec.seqs, tt.want)
			}
			if rec.Finishes != 1 || rec.Visible.String() != "1 2" {
				t.Errorf("finish ×%d, text %q", rec.Finishes, rec.Visible.String())
			}
		})
	}
}
