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

// TestReadSize: a stream whose upstream sends no faster than it is read
// keeps reading into the small buffer; one whose reads come back full
// (the upstream ahead, a backlog waiting) reads twice as much each time,
// up to backlogBuf, so that a backlog costs fewer reads; and a reader
// given back starts the next stream small again.
func TestReadSize(t *testing.T) {
	event := "data: " + strings.Repeat("x", 100) + "\n\n"
	for _, c := range []struct {
		name    string
		step    int // bytes the body gives a read, at most
		events  int
		wantBuf int // the buffer's size after reading them all
	}{
		{"an event a read", len(event), 200, smallBuf},
		{"a backlog", 1 << 20, 2000, backlogBuf},
		{"a backlog smaller than the buffer", 1 << 20, 5, smallBuf},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := &countingReader{pieces: pieces{b: []byte(strings.Repeat(event, c.events)), step: c.step}}
			r := NewReader(body, 1<<20)
			n := 0
			for {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			if n != c.events {
				t.Fatalf("read %d events, want %d", n, c.events)
			}
			if len(r.buf) != c.wantBuf {
				t.Errorf("buffer %d bytes after %d reads, want %d", len(r.buf), body.reads, c.wantBuf)
			}
			if c.wantBuf == backlogBuf && body.reads > c.events*len(event)/backlogBuf+8 {
				t.Errorf("%d reads for %d bytes waiting: the buffer did not grow with the backlog", body.reads, c.events*len(event))
			}
			r.Release()
			if next := NewReader(strings.NewReader(""), 1<<20); len(next.buf) != smallBuf {
				t.Errorf("the next stream's reader starts with %d bytes, want %d", len(next.buf), smallBuf)
			}
		})
	}
}

// countingReader counts the reads of pieces.
type countingReader struct {
	pieces
	reads int
}

func (c *countingReader) Read(b []byte) (int, error) {
	c.reads++
	return c.pieces.Read(b)
}
