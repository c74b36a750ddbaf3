// Package sse reads the data payloads of an upstream's event stream, held
// to go-sse's reader by a differential fuzz test (reader_test.go) but
// allocating only the payload a round keeps.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
	"unsafe"
)

// ErrCut is an upstream body that ended in the middle of a line: the
// event it belonged to never arrived whole.
var ErrCut = errors.New("the event stream ended in the middle of a line")

// Reader reads the data payloads of an event stream, as the SSE spec
// (and go-sse, whose behaviour it keeps) reads them: lines end in LF, CR
// or CRLF; a blank line ends an event; "data" lines join with "\n";
// comments and unknown fields are skipped; a UTF-8 BOM at the start is
// dropped; at the end of the body an event without its blank line still
// counts, a line without its line break does not.
//
// It exists instead of go-sse's reader because that one cost two
// allocations and two copies per event on the path every token takes;
// this one makes one, the payload string the loop keeps.
type Reader struct {
	r     io.Reader
	buf   []byte
	start int // buf[start:end] is read but not yet parsed
	end   int
	eof   bool
	// max bounds one event, its lines together: bigger is an error
	// wrapping bufio.ErrTooLong.
	max     int
	size    int    // bytes of the current event so far
	data    []byte // the current event's data lines, each ending in "\n"
	dirty   bool   // the current event has a field that makes it an event
	started bool   // past the first line (and its BOM)
	// filled says the last read filled the buffer: the upstream is ahead
	// of the reader, and the next read asks for twice as much.
	filled bool
	// waiter, when set, is read through while the reader holds no unread
	// bytes (see WaitWith); park is s.park, for it.
	waiter Waiter
	park   func()
}

// Waiter is a body that can wait for its next bytes without the buffer
// they are to be read into: h1's body.
type Waiter interface {
	// Ready reads what is there into p, for the Read that follows, or
	// calls park and waits for the body's next bytes without p.
	Ready(p []byte, park func())
}

// WaitWith makes the reader read through w whenever it holds no unread
// bytes: should w have to wait, the buffer goes back to a pool
// meanwhile, and a stream that waits for its upstream holds none.
func (s *Reader) WaitWith(w Waiter) { s.waiter, s.park = w, s.giveBack }

// smallBuf is what a stream reads into while the upstream sends no
// faster than it is read, as a model server does token by token, and
// what an idle stream holds: one event of a chunk fits. backlogBuf is
// the most it grows to while reads keep filling it: a read of 1KiB when
// 16KiB are waiting is sixteen reads, and as many writes to the client.
const (
	smallBuf   = 1 << 10
	backlogBuf = 16 << 10
)

// bom is the UTF-8 byte order mark a stream may start with.
var bom = []byte("\xEF\xBB\xBF")

// NewReader starts with a small buffer, grown for a longer line: the
// body below it is buffered already, and an idle stream holds this for
// as long as it is open.
func NewReader(r io.Reader, max int) *Reader {
	s, _ := readers.Get().(*Reader)
	if s == nil {
		s = &Reader{}
	}
	if s.buf == nil {
		s.buf = takeSmall()
	}
	*s = Reader{r: r, buf: s.buf[:cap(s.buf)], data: s.data[:0], max: max}
	return s
}

// smallBufs are the buffers of readers waiting for bytes (WaitWith).
var smallBufs sync.Pool

func takeSmall() []byte {
	if b, _ := smallBufs.Get().(*[smallBuf]byte); b != nil {
		return b[:]
	}
	return make([]byte, smallBuf)
}

// await reads through the Waiter, which waits for the body's next bytes
// with the buffer given back, when the reader holds nothing to parse and
// the buffer is the small one, and the last read did not fill it (a
// backlog, which waits for nothing): one grown for a backlog is kept for
// the rest of it.
func (s *Reader) await() {
	if s.waiter == nil || s.end > 0 || s.filled || cap(s.buf) != smallBuf {
		return
	}
	s.waiter.Ready(s.buf, s.park)
	if s.buf == nil {
		s.buf = takeSmall()
	}
}

// giveBack puts the buffer back while the Waiter waits.
func (s *Reader) giveBack() {
	smallBufs.Put((*[smallBuf]byte)(s.buf[:smallBuf]))
	s.buf = nil
}

// Release gives the reader's buffers back for another stream. Nothing it
// returned may be used after.
func (s *Reader) Release() {
	if cap(s.buf) > maxPooledBuf || cap(s.data) > maxPooledBuf {
		return
	}
	if cap(s.buf) > smallBuf {
		// Grown for a backlog or a long line: the next stream starts
		// small, or it would hold this while idle.
		s.buf = nil
	}
	s.r = nil
	readers.Put(s)
}

// readers are readers whose streams ended: a stream's buffers are reused
// rather than allocated per request. One that grew for a huge event is
// dropped instead.
var readers sync.Pool

const maxPooledBuf = 64 << 10

// Next returns the next event's data. At the end of the body it returns
// io.EOF, after the last event.
func (s *Reader) Next() (string, error) {
	for {
		line, err := s.line()
		if err == io.EOF {
			if s.dirty {
				s.dirty = false
				return s.take(), nil
			}
			return "", io.EOF
		}
		if err != nil {
			return "", err
		}
		if len(line) > 0 && !s.started {
			s.started = true
			line = bytes.TrimPrefix(line, bom)
		}
		if len(line) == 0 {
			if s.dirty {
				s.dirty = false
				return s.take(), nil
			}
			continue
		}
		s.size += len(line)
		if s.size > s.max {
			return "", bufio.ErrTooLong
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(name) {
		case "data":
			s.data = append(append(s.data, value...), '\n')
			s.dirty = true
		case "event":
			s.dirty = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.dirty = true
			}
		}
		// retry, comments (an empty name) and unknown fields: nothing.
	}
}

// take returns the current event's data and starts the next event. The
// string views the reader's buffer: it is valid until the next call of
// Next, as loop.Stream says, so the per-token path allocates nothing.
func (s *Reader) take() string {
	d := s.data
	if len(d) > 0 {
		d = d[:len(d)-1]
	}
	s.data, s.size = s.data[:0], 0
	return unsafe.String(unsafe.SliceData(d), len(d))
}

// line returns the next line without its line break. It is valid until
// the next call.
func (s *Reader) line() ([]byte, error) {
	for {
		w := s.buf[s.start:s.end]
		if i := lineBreak(w); i >= 0 {
			n := i + 1
			if w[i] == '\r' {
				if i+1 == len(w) && !s.eof {
					// A CR last in the buffer: whether an LF follows
					// is in the next read.
					if err := s.fill(); err != nil {
						return nil, err
					}
					continue
				}
				if i+1 < len(w) && w[i+1] == '\n' {
					n++
				}
			}
			s.start += n
			return w[:i], nil
		}
		if s.eof {
			if !s.started && bytes.Equal(w, bom) {
				w = nil // a body of nothing but the BOM
			}
			if len(w) > 0 {
				s.start = s.end
				return nil, ErrCut
			}
			return nil, io.EOF
		}
		if len(w) > s.max {
			return nil, bufio.ErrTooLong
		}
		if err := s.fill(); err != nil {
			return nil, err
		}
	}
}

// fill reads more of the body behind what is not parsed yet, growing the
// buffer when a line fills it, or when the last read did.
func (s *Reader) fill() error {
	if s.start > 0 {
		s.end = copy(s.buf, s.buf[s.start:s.end])
		s.start = 0
	}
	s.await()
	if s.end == len(s.buf) || s.filled && len(s.buf) < backlogBuf {
		s.buf = append(s.buf, make([]byte, len(s.buf))...)
	}
	for range 100 { // as bufio: a reader that keeps reading nothing is broken
		n, err := s.r.Read(s.buf[s.end:])
		s.filled = n > 0 && s.end+n == len(s.buf)
		s.end += n
		if err == io.EOF {
			s.eof = true
			return nil
		}
		if err != nil || n > 0 {
			return err
		}
	}
	return io.ErrNoProgress
}

// lineBreak is the index of the first CR or LF in b, or -1: two
// vectorised byte searches. Chunks of JSON have no line break until their
// end, and bytes.IndexAny's byte-by-byte set test made finding it the
// dearest step of reading an event. (proxy's frame writer has the same
// search: it cannot import an internal package of the client's.)
func lineBreak(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	return i
}
