package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tmaxmax/go-sse"
)

// readAllEvents runs the reader over body, fed in pieces of step bytes.
func readAllEvents(body []byte, step int) ([]string, error) {
	r := NewReader(&pieces{b: body, step: step}, 1<<20)
	var out []string
	for {
		d, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, strings.Clone(d)) // d is only valid until the next event
	}
}

// pieces is a reader that gives step bytes a read, so that line breaks
// (CR then LF above all) fall across reads.
type pieces struct {
	b    []byte
	step int
}

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.b) == 0 {
		return 0, io.EOF
	}
	n := copy(b[:min(len(b), p.step)], p.b)
	p.b = p.b[n:]
	return n, nil
}

// FuzzSSEReaderMatchesGoSSE: the reader yields the same payloads as
// go-sse's, in the same order, and fails where it fails — whatever the
// body, however it is split into reads.
func FuzzSSEReaderMatchesGoSSE(f *testing.F) {
	for _, s := range []string{
		"data: {\"choices\":[]}\n\ndata: [DONE]\n\n",
		"data: a\r\ndata: b\r\n\r\n: comment\n\nevent: x\nid: 1\ndata: c\n\n",
		"data: {\"x\":1}\rdata: y\r\r", "\xEF\xBB\xBFdata: bom\n\n", "data:no space\n\n",
		"data\n\n", "id: a\x00b\n\n", "retry: 5\n\n", "data: cut", "data: a\n", "\r\n\r\ndata: x\r",
		"event: only\n\n", "datum: x\n\ndata: y\n\n", ":\n\n",
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, body []byte, step uint8) {
		var want []string
		var wantErr error
		for ev, err := range sse.Read(bytes.NewReader(body), &sse.ReadConfig{MaxEventSize: 1 << 20}) {
			if err != nil {
				wantErr = err
				break
			}
			want = append(want, ev.Data)
		}
		got, err := readAllEvents(body, int(step%16)+1)
		if (err != nil) != (wantErr != nil) || err != nil && !errors.Is(err, ErrCut) {
			t.Fatalf("body %q: error %v, go-sse's %v", body, err, wantErr)
		}
		if len(got) != len(want) {
			t.Fatalf("body %q: events %q, go-sse's %q", body, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("body %q: events %q, go-sse's %q", body, got, want)
			}
		}
	})
}
