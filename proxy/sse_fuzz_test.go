package proxy

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tmaxmax/go-sse"
)

// FuzzSinkFrame: whatever payload the sink frames, go-sse's reader gets it
// back as one event, every line break read as "\n" — so a payload with
// line breaks can neither end its event early nor smuggle in a field.
func FuzzSinkFrame(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "a\nb", "a\r\nb\rc", "\n\n", "data: [DONE]", ": x\nevent: y", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		frame := appendEvent(nil, "data: ", payload)
		var got []string
		for ev, err := range sse.Read(bytes.NewReader(frame), &sse.ReadConfig{MaxEventSize: 1 << 20}) {
			if err != nil {
				t.Fatalf("frame %q: %v", frame, err)
			}
			got = append(got, ev.Data)
		}
		want := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(payload))
		if len(got) != 1 || got[0] != want {
			t.Fatalf("payload %q framed as %q read back as %q", payload, frame, got)
		}
	})
}
