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

// TestStream: a chat stream takes the turn as chunks, writes each as it
// came, a keepalive as a comment, and ignores the typed events, which the
// chunks already carry.
func TestStream(t *testing.T) {
	var w writes
	s := chat.NewStream(&w)
	if got := s.Takes(); !got.Chunks || got.NoProgress || got.Transcript {
		t.Errorf("Takes() = %+v, want chunks with progress", got)
	}
	chunk := []byte(`{"id":"c1","choices":[{"index":0,"delta":{"content":"Hi"}}]}`)
	steps := []func() error{
		func() error { return s.Hold(true) },
		func() error { return s.Raw(chunk) },
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
	want := []string{"hold on", "data: " + string(chunk), "hold off", ": keepalive", "flush", "data: [DONE]"}
	if diff := cmp.Diff(want, []string(w)); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
}
