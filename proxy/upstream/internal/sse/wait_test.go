package sse

import (
	"io"
	"strings"
	"testing"
)

// waitCheck is a body read in pieces, and a Waiter that, every other
// time, reads the next piece into the buffer it is given (pending, for the
// Read after) and otherwise parks; it records whether the reader's buffer
// was back once parked.
type waitCheck struct {
	pieces
	r                    *Reader
	pending              []byte
	waits, parks, heldAt int
}

func (w *waitCheck) Ready(p []byte, park func()) {
	w.waits++
	if w.waits%2 == 0 {
		n, _ := w.pieces.Read(p)
		w.pending = p[:n]
		return
	}
	w.parks++
	park()
	if w.r.buf != nil {
		w.heldAt++
	}
}

func (w *waitCheck) Read(p []byte) (int, error) {
	if len(w.pending) > 0 {
		n := copy(p, w.pending)
		w.pending = w.pending[n:]
		return n, nil
	}
	return w.pieces.Read(p)
}

// TestWaitWith: a reader that has parsed every byte it read goes through
// its Waiter, and reads the same events as without one, whether the
// Waiter read the bytes into its buffer or parked it; the buffer is given
// back while the Waiter waits. One with bytes still to parse reads on
// without the Waiter.
func TestWaitWith(t *testing.T) {
	body := "data: one\n\ndata: two\n\n: comment\ndata: three\n\n"
	want, err := readAllEvents([]byte(body), 7)
	if err != nil {
		t.Fatal(err)
	}
	w := &waitCheck{pieces: pieces{b: []byte(body), step: 7}}
	r := NewReader(w, 1<<20)
	defer r.Release()
	w.r = r
	r.WaitWith(w)
	var got []string
	for {
		d, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Clone(d)) // valid until the next Next
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("read %q, want %q", got, want)
	}
	if w.parks == 0 || w.waits == w.parks || w.heldAt > 0 {
		t.Errorf("%d waits, %d parked, %d of them holding the buffer; want some of each, none holding it", w.waits, w.parks, w.heldAt)
	}
	if reads := (len(body) + 6) / 7; w.waits >= reads {
		t.Errorf("%d waits for %d reads: a reader with bytes left to parse waited", w.waits, reads)
	}
}
