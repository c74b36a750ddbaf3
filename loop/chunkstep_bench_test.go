package loop

import (
	"context"
	"iter"
	"testing"
)

// memUpstream replays the same event n times, then [DONE].
type memUpstream struct {
	event string
	n     int
}

func (u *memUpstream) Open(ctx context.Context, body []byte) (Stream, error) { return u, nil }
func (u *memUpstream) Close() error                                          { return nil }
func (u *memUpstream) Events() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for range u.n {
			if !yield(u.event, nil) {
				return
			}
		}
		yield(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, nil)
		yield("[DONE]", nil)
	}
}

type discardSink struct {
	Ignore
	bytes int
}

func (d *discardSink) Takes() Takes { return Takes{Chunks: true} }

func (d *discardSink) Raw(b []byte) error { d.bytes += len(b); return nil }
func (d *discardSink) Done() error        { return nil }

// BenchmarkChunk measures the per-chunk path of a turn: parse the upstream
// event with fastjson, check the envelope, forward. One op is one chunk.
func BenchmarkChunk(b *testing.B) {
	const body = `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	cases := []struct{ name, model, event string }{
		// The common case: nothing to change, the bytes go out as they came.
		{"unchanged", "m", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null}]}`},
		// The upstream names another model: every chunk is re-marshalled.
		{"rewrite", "alias", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null}]}`},
		// DeepSeek-style reasoning chunk, forwarded untouched.
		{"reasoning", "m", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":null,"reasoning_content":" so the user wants \"x\"\n"},"logprobs":null,"finish_reason":null}]}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			req, err := ParseRequest([]byte(`{"model":"` + c.model + `","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
			if err != nil {
				b.Fatal(err)
			}
			_ = body
			up := &memUpstream{event: c.event, n: b.N}
			sink := &discardSink{}
			var r Runner
			b.SetBytes(int64(len(c.event)))
			b.ReportAllocs()
			b.ResetTimer()
			if _, err := r.Run(context.Background(), &Turn{Request: req, Upstream: up, UpstreamName: "mem"}, sink); err != nil {
				b.Fatal(err)
			}
		})
	}
}
