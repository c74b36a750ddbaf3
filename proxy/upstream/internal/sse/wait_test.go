package sse

import (
	"io"
	"strings"
	"testing"
)

// waitCheck is a body read in pieces whose Waiter records whether the
// reader held its buffer while it waited.
type waitCheck struct {
	pieces
	r            *Reader
	waits, heldN int
}

func (w *waitCheck) Ready() {
	w.waits++
	if w.r.buf != nil {
		w.heldN++
	}
}

// TestWaitWith: a reader that has parsed every byte it read waits for
// the next ones with its buffer given back, and reads the same events as
// without a Waiter; one with bytes still to parse reads on without
// waiting.
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
	if len(got) != len(want) {
		t.Fatalf("read %q, want %q", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("read %q, want %q", got, want)
		}
	}
	if w.waits == 0 || w.heldN > 0 {
		t.Errorf("%d waits, %d of them holding the buffer; want some, none holding it", w.waits, w.heldN)
	}
	if w.waits >= (len(body)+6)/7 {
		t.Errorf("%d waits for %d reads: a reader with bytes left to parse waited", w.waits, (len(body)+6)/7)
	}
}
