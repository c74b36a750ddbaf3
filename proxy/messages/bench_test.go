package messages_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/messages"
)

// discard is a Writer that writes nowhere.
type discard struct{ n int }

func (d *discard) WriteEvent(name string, data []byte) error {
	d.n += len(name) + len(data)
	return nil
}

// BenchmarkEncoderAnswer is one streamed answer of a turn without tools,
// as the encoder writes it: message_start, a text block of 64 deltas,
// its stop, message_delta and message_stop. One op is one answer.
func BenchmarkEncoderAnswer(b *testing.B) {
	words := make([]string, 64)
	for i := range words {
		words[i] = fmt.Sprintf("w%d xxxxxxxxxxxxx", i)
	}
	usage := json.RawMessage(`{"prompt_tokens":12,"completion_tokens":64,"total_tokens":76}`)
	var w discard
	b.ReportAllocs()
	for b.Loop() {
		e := messages.NewStream(&w, messages.Options{ID: "msg_0123456789abcdef", Model: "bench-prose"})
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

// BenchmarkToChatLongConversation maps a conversation of 10,000 short
// messages to its chat body. Its bytes per op are what reading a long
// Messages request costs: each message's blocks, its chat message, and
// the chat body written once.
func BenchmarkToChatLongConversation(b *testing.B) {
	body := []byte(`{"model":"m","max_tokens":10,"messages":[` +
		strings.TrimSuffix(strings.Repeat(`{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"text","text":"b"}]},`, 5000), ",") + `]}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := messages.ToChat(body); err != nil {
			b.Fatal(err)
		}
	}
}
