package messages_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/proxy/internal/encodertest"
	"github.com/toolstream/toolstream/proxy/messages"
)

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
	want := answer(&encodertest.SSE{})
	if d := cmp.Diff(want, answer(&encodertest.Framing{})); d != "" {
		t.Errorf("framed by the encoder (-by the writer +by the encoder):\n%s", d)
	}
}
