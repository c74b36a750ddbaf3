package responses_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/internal/encodertest"
	"github.com/toolstream/toolstream/proxy/responses"
)

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
	want := answer(&encodertest.SSE{})
	if d := cmp.Diff(want, answer(&encodertest.Framing{})); d != "" {
		t.Errorf("framed by the encoder (-by the writer +by the encoder):\n%s", d)
	}
}
