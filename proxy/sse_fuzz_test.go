package proxy

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// FuzzUpstreamSSE feeds arbitrary bytes as an upstream's response body to
// the reader rounds use: it never panics or hangs, yields at most one
// event per line, and ends (with or without an error) at the end of the
// body.
func FuzzUpstreamSSE(f *testing.F) {
	for _, s := range []string{
		"data: {\"choices\":[]}\n\ndata: [DONE]\n\n",
		"data: a\r\ndata: b\r\n\r\n: comment\n\nevent: x\nid: 1\ndata: c\n\n",
		"data: {\"x\":1}\rdata: y\r\r",
		"data:" + string(bytes.Repeat([]byte("x"), 70000)) + "\n\n",
		"\n\n\n", "data", "retry: 5\n\n", "data: \xff\xfe\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ib := newIdleBody(io.NopCloser(bytes.NewReader(body)), 0)
		s := &sseStream{body: ib, idle: ib, upstream: "u", ctx: context.Background(), cancel: func() {}, maxEvent: 64 << 10}
		n := 0
		for _, err := range s.Events() {
			if err != nil {
				break
			}
			if n++; n > bytes.Count(body, []byte("\n"))+bytes.Count(body, []byte("\r"))+1 {
				t.Fatalf("%d events from %d bytes", n, len(body))
			}
		}
		s.Close()
	})
}

// FuzzSinkFrame: whatever payload the sink frames, an SSE reader gets it
// back as one event, every line break read as "\n" — so a payload with
// line breaks can neither end its event early nor smuggle in a field.
func FuzzSinkFrame(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "a\nb", "a\r\nb\rc", "\n\n", "data: [DONE]", ": x\nevent: y", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		frame := appendEvent(nil, "data: ", payload)
		ib := newIdleBody(io.NopCloser(bytes.NewReader(frame)), 0)
		s := &sseStream{body: ib, idle: ib, upstream: "u", ctx: context.Background(), cancel: func() {}, maxEvent: 1 << 20}
		var got []string
		for data, err := range s.Events() {
			if err != nil {
				t.Fatalf("frame %q: %v", frame, err)
			}
			got = append(got, strings.Clone(data))
		}
		want := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(payload))
		if len(got) != 1 || got[0] != want {
			t.Fatalf("payload %q framed as %q read back as %q", payload, frame, got)
		}
	})
}
