package toolhost

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readAll parses a whole stream; the error is the one that ended it.
func readAll(r io.Reader, max int) ([]sseEvent, error) {
	p := newSSEReader(r, max)
	var evs []sseEvent
	for {
		ev, err := p.next()
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []sseEvent
	}{
		{"progress then result", "event: progress\ndata: {\"progress\":1}\n\nevent: result\ndata: {\"ok\":true}\n\n",
			[]sseEvent{{"progress", []byte(`{"progress":1}`)}, {"result", []byte(`{"ok":true}`)}}},
		{"CRLF and CR endings", "event: result\r\ndata: a\r\rdata:b\r\n\r\n",
			[]sseEvent{{"result", []byte("a")}, {"", []byte("b")}}},
		{"data lines join with LF", "event:result\ndata: one\ndata:  two\n\n",
			[]sseEvent{{"result", []byte("one\n two")}}},
		{"comments and unknown fields ignored", ": hi\nid: 7\nretry: 10\nevent: result\nfoo\ndata: x\n\n",
			[]sseEvent{{"result", []byte("x")}}},
		{"an event without data is not dispatched", "event: result\n\ndata: y\n\n",
			[]sseEvent{{"", []byte("y")}}},
		{"an event not closed by a blank line is dropped", "event: result\ndata: {\"cut\":", nil},
		{"the last line ends the stream without a blank line", "event: result\ndata: x\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				got, err := readAll(r, 1024)
				if !errors.Is(err, io.EOF) {
					t.Errorf("ended with %v, want io.EOF", err)
				}
				if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(sseEvent{})); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestSSEReaderCapsData: an event's data is kept to max+1 bytes however
// long it is, and the stream goes on after it.
func TestSSEReaderCapsData(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	got, err := readAll(strings.NewReader("event: result\ndata: "+long+"\ndata: "+long+"\n\nevent: next\ndata: ok\n\n"), 10)
	if !errors.Is(err, io.EOF) || len(got) != 2 {
		t.Fatalf("events %d, err %v", len(got), err)
	}
	if string(got[0].data) != strings.Repeat("x", 11) || string(got[1].data) != "ok" {
		t.Errorf("data %q, %q", got[0].data, got[1].data)
	}
}

// FuzzSSEReader: whatever the bytes, the parser ends, keeps no event's data
// past max+1 bytes, and reads the same events whole as a byte at a time.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"event: progress\ndata: {\"progress\":1}\n\nevent: result\ndata: {}\n\n",
		"event: result\r\ndata: a\r\rdata:b\r\n\r\n",
		": c\n\ndata\n\ndata:\ndata\n\n",
		"event: error\ndata: {\"message\":\"no\"}\n\n",
	} {
		f.Add(s, 8)
	}
	f.Fuzz(func(t *testing.T, in string, max int) {
		if max < 0 || max > 1<<16 {
			t.Skip()
		}
		whole, err := readAll(strings.NewReader(in), max)
		if !errors.Is(err, io.EOF) {
			t.Fatalf("ended with %v", err)
		}
		bytewise, _ := readAll(iotest.OneByteReader(strings.NewReader(in)), max)
		if diff := cmp.Diff(whole, bytewise, cmp.AllowUnexported(sseEvent{})); diff != "" {
			t.Errorf("whole vs a byte at a time (-whole +bytewise):\n%s", diff)
		}
		for _, ev := range whole {
			if len(ev.data) > max+1 {
				t.Errorf("kept %d bytes of data, max %d", len(ev.data), max)
			}
		}
	})
}
