package messages_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/proxy/messages"
)

// sse is a Writer that frames each event as the SSE writer does, for one
// whose JSON holds no line break.
type sse struct{ strings.Builder }

func (w *sse) WriteEvent(name string, data []byte) error {
	if strings.ContainsAny(string(data), "\r\n") {
		panic("a line break in " + string(data))
	}
	w.WriteString("event: " + name + "\ndata: " + string(data) + "\n\n")
	return nil
}

// framing is an sse that also takes frames, as the SSE writer does.
type framing struct{ sse }

func (w *framing) WriteFrame(frame []byte) error { w.WriteString(string(frame)); return nil }

// TestEncoderFrames: the events the encoder frames itself for a Writer
// that takes frames are the bytes the Writer would have framed.
func TestEncoderFrames(t *testing.T) {
	steps := []step{reasoning("Hm,\n\"ok\""), text("Hi \u2028\xff\n"), text("there."),
		call(0, "call_1", "get_time", `{"a":`), call(0, "", "", "\"b\\n\"}"), finish("tool_calls"), done()}
	answer := func(w messages.Writer) string {
		e := messages.NewStream(w, opts)
		for _, s := range steps {
			if err := s(e); err != nil {
				t.Fatal(err)
			}
		}
		return w.(interface{ String() string }).String()
	}
	want := answer(&sse{})
	if d := cmp.Diff(want, answer(&framing{})); d != "" {
		t.Errorf("framed by the encoder (-by the writer +by the encoder):\n%s", d)
	}
}
