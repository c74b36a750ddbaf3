package responses_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolstream/toolstream/proxy/responses"
)

// discard is a Writer that writes nowhere.
type discard struct{ n int }

func (d *discard) WriteEvent(name string, data []byte) error {
	d.n += len(name) + len(data)
	return nil
}
func (d *discard) Comment(string) error { return nil }

// BenchmarkEncoderAnswer is one streamed answer of a turn without tools,
// as the encoder writes it: response.created and in_progress, a message
// of 64 text deltas, its closing events and response.completed, and what
// a stored response keeps. One op is one answer; it is the per-stream
// cost of the Responses route over the chat route's, less the turn.
func BenchmarkEncoderAnswer(b *testing.B) {
	r, err := responses.ToChat([]byte(`{"model":"bench-prose","stream":true,"input":"add a task"}`))
	if err != nil {
		b.Fatal(err)
	}
	words := make([]string, 64)
	for i := range words {
		words[i] = fmt.Sprintf("w%d xxxxxxxxxxxxx", i)
	}
	usage := json.RawMessage(`{"prompt_tokens":12,"completion_tokens":64,"total_tokens":76}`)
	var w discard
	b.ReportAllocs()
	for b.Loop() {
		e := responses.NewEncoder(r, responses.Options{ID: "resp_0123456789abcdef", Created: 1800000000, Writer: &w,
			NewID: func(p string) string { return p + "0123456789abcdef" }, Keep: func(responses.Finished) {}})
		for _, s := range words {
			if err := e.Text(s); err != nil {
				b.Fatal(err)
			}
		}
		if err := e.Finish("stop"); err != nil {
			b.Fatal(err)
		}
		if err := e.Usage(usage); err != nil {
			b.Fatal(err)
		}
		if err := e.Done(); err != nil {
			b.Fatal(err)
		}
	}
}
