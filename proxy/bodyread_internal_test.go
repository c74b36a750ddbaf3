package proxy

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAll: a body is read whole whatever its declared length, and a
// body that stops early holds a buffer of the order of what it sent, not
// of what it declared.
func TestReadAll(t *testing.T) {
	body := strings.Repeat("0123456789", 10000)
	for _, tc := range []struct {
		name string
		r    io.Reader
		size int64
	}{
		{"declared", strings.NewReader(body), int64(len(body))},
		{"declared, a byte at a time", iotest.OneByteReader(strings.NewReader(body)), int64(len(body))},
		{"not declared", strings.NewReader(body), -1},
		{"empty", strings.NewReader(""), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(tc.r, tc.size)
			want := body
			if tc.size == 0 {
				want = ""
			}
			if err != nil || string(got) != want {
				t.Fatalf("got %d bytes, %v; want %d", len(got), err, len(want))
			}
			if tc.size > 0 && cap(got) > int(tc.size)+1 {
				t.Errorf("buffer of %d bytes for a body of %d", cap(got), tc.size)
			}
		})
	}
	stall := errors.New("stalled")
	got, err := readAll(io.MultiReader(bytes.NewReader(make([]byte, 1000)), iotest.ErrReader(stall)), 10<<20)
	if !errors.Is(err, stall) || len(got) != 1000 || cap(got) > 2*1000+512 {
		t.Errorf("a body declaring 10MiB that stalled after 1000 bytes: %d bytes in a buffer of %d, %v", len(got), cap(got), err)
	}
}
