package upstream

import (
	"bytes"
	"io"
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
		s := StreamOf(io.NopCloser(bytes.NewReader(body)), "u", 64<<10)
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
