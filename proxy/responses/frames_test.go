package responses_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/responses"
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
func (w *sse) Comment(text string) error { w.WriteString(": " + text + "\n\n"); return nil }

// framing is an sse that also takes frames, as the SSE writer does.
type framing struct{ sse }

func (w *framing) WriteFrame(frame []byte) error { w.WriteString(string(frame)); return nil }

// TestEncoderFrames: the events the encoder frames itself for a Writer
// that takes frames are the bytes the Writer would have framed.
func TestEncoderFrames(t *testing.T) {
	answer := func(w responses.Writer) string {
		r, err := responses.ToChat([]byte(`{"model":"m","stream":true,"input":"hi","tools":[{"type":"function","name":"f"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		e := responses.NewEncoder(r, responses.Options{ID: "resp_1", Created: 1, Writer: w,
			NewID: func(p string) string { return p + "1\"\n" }})
		for _, step := range []func() error{
			func() error { return e.Reasoning("Hm,\n\"ok\"") },
			func() error { return e.Text("Hi \u2028\xff\n") },
			func() error { return e.Text("there.") },
			func() error {
				return e.ToolCall(loop.ToolCallDelta{Index: 0, ID: "call_1", Name: "f", Arguments: `{"a":`})
			},
			func() error { return e.ToolCall(loop.ToolCallDelta{Index: 0, Arguments: "\"b\\n\"}"}) },
			func() error { return e.Finish("tool_calls") },
			e.Done,
		} {
			if err := step(); err != nil {
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
