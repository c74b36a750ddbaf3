package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/chat"
)

// writes records what a Stream writes, in order.
type writes []string

func (w *writes) Send(b []byte) error       { *w = append(*w, "data: "+string(b)); return nil }
func (w *writes) Comment(text string) error { *w = append(*w, ": "+text); return nil }
func (w *writes) Done() error               { *w = append(*w, "data: [DONE]"); return nil }
func (w *writes) Hold(on bool) error {
	*w = append(*w, "hold "+map[bool]string{true: "on", false: "off"}[on])
	return nil
}
func (w *writes) Flush() error { *w = append(*w, "flush"); return nil }

// TestStream: a chat stream takes the upstream's chunks and writes each as
// it came; of the turn's own output it builds chunks with the turn's
// identity and the role on the answer's first delta only — here the
// upstream's chunk opened it; a keepalive is a comment, and the usage,
// which the chunks carry, it ignores.
func TestStream(t *testing.T) {
	var w writes
	s := chat.NewStream(&w)
	if got := s.Takes(); !got.Chunks || got.NoProgress || got.Transcript {
		t.Errorf("Takes() = %+v, want chunks with progress", got)
	}
	chunk := []byte(`{"id":"c1","choices":[{"index":0,"delta":{"content":"Hi"}}]}`)
	steps := []func() error{
		func() error { s.Begin(loop.Begin{ID: "c1", Created: 7, Model: "m"}); return nil },
		func() error { return s.Hold(true) },
		func() error { s.Opened(); return s.Raw(chunk) },
		func() error { return s.Text("Hi") },
		func() error { return s.ToolCall(loop.ToolCallDelta{ID: "call_1"}) },
		func() error { return s.Event(&loop.Event{Event: "round.started"}) },
		func() error { return s.Finish("stop") },
		func() error { return s.Usage(json.RawMessage(`{}`)) },
		func() error { return s.Hold(false) },
		func() error { return s.Keepalive() },
		func() error { return s.Flush() },
		func() error { return s.Done() },
	}
	for _, f := range steps {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	const env = `data: {"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{`
	want := []string{"hold on", "data: " + string(chunk),
		env + `"content":"Hi"},"finish_reason":null}]}`,
		env + `"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"arguments":""}}]},"finish_reason":null}]}`,
		env + `}}],"toolstream":{"event":"round.started","round":0}}`,
		env + `},"finish_reason":"stop"}]}`,
		"hold off", ": keepalive", "flush", "data: [DONE]"}
	if diff := cmp.Diff(want, []string(w)); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
}

// TestStreamRole: the first chunk a Stream builds carries the role when no
// upstream chunk opened the answer, and no later one does.
func TestStreamRole(t *testing.T) {
	var w writes
	s := chat.NewStream(&w)
	s.Begin(loop.Begin{ID: "x", Created: 1, Model: "m"})
	for _, f := range []func() error{
		func() error { return s.Event(&loop.Event{Event: "round.started", Round: 1}) },
		func() error { return s.Reasoning("Hm <3") },
		func() error { return s.Finish("stop") },
	} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	const env = `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{`
	want := []string{
		env + `"role":"assistant"}}],"toolstream":{"event":"round.started","round":1}}`,
		env + `"reasoning_content":"Hm <3"},"finish_reason":null}]}`,
		env + `},"finish_reason":"stop"}]}`,
	}
	if diff := cmp.Diff(want, []string(w)); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
}
