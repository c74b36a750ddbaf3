package h1

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http/httputil"
	"testing"
)

// stepReader hands out src in reads of the sizes steps gives in turn,
// as a connection does.
type stepReader struct {
	src   []byte
	steps []byte
	i     int
}

func (r *stepReader) Read(p []byte) (int, error) {
	if len(r.src) == 0 {
		return 0, io.EOF
	}
	n := len(p)
	if len(r.steps) > 0 {
		n = min(n, 1+int(r.steps[r.i%len(r.steps)]))
		r.i++
	}
	n = copy(p[:n], r.src)
	r.src = r.src[n:]
	return n, nil
}

// referenceChunked decodes body as net/http does: ok says it was a
// whole chunked body, and more that bytes followed it. Its trailer is
// read by our rule (see bodyReader.decode): CRLF lines, each a field with
// a colon, up to an empty one; net/http reads bare-LF lines there only
// with a CRLFCRLF further on, which a decoder reading in place cannot look
// for (FuzzResponse holds the difference to that).
func referenceChunked(body []byte) (data []byte, ok, more bool) {
	br := bufio.NewReader(bytes.NewReader(body))
	data, err := io.ReadAll(httputil.NewChunkedReader(br))
	if err != nil {
		return data, false, false
	}
	for {
		line, err := br.ReadSlice('\n')
		if err != nil || !bytes.HasSuffix(line, []byte("\r\n")) {
			return data, false, false
		}
		if len(line) == 2 {
			break
		}
		if bytes.IndexByte(line, ':') <= 0 {
			return data, false, false
		}
	}
	_, err = br.ReadByte()
	return data, true, err != io.EOF
}

// readChunked decodes body, read in steps into a buffer of bufSize;
// clean says the connection could be kept after it.
func readChunked(body, steps []byte, bufSize int) (data []byte, err error, clean bool) {
	b := &bodyReader{src: &stepReader{src: body, steps: steps}, mode: bodyChunked}
	buf := make([]byte, bufSize)
	for {
		n, err := b.Read(buf)
		data = append(data, buf[:n]...)
		if err != nil {
			return data, err, b.clean()
		}
	}
}

// FuzzChunkedInPlace holds the in-place chunked decoder to net/http's: a
// body net/http reads whole comes out the same, however the connection
// cuts it into reads and however small the caller's buffer; one it
// refuses is refused, never taken for a complete answer. Bytes after a
// whole body do not fail it, but its connection is not kept when a read
// took some of them.
func FuzzChunkedInPlace(f *testing.F) {
	f.Add([]byte("5\r\nhello\r\n0\r\n\r\n"), []byte{0}, uint8(3))
	f.Add([]byte("1A;ext=1\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-T: 1\r\n\r\n"), []byte{2, 7}, uint8(64))
	f.Add([]byte("5\r\nhel"), []byte{1}, uint8(8))
	f.Add([]byte("5\r\nhelloXX0\r\n\r\n"), []byte{}, uint8(16))
	f.Add([]byte("zz\r\n"), []byte{}, uint8(16))
	f.Add([]byte("3\nabc\n0\n\n"), []byte{}, uint8(16))
	f.Fuzz(func(t *testing.T, body, steps []byte, size uint8) {
		want, ok, more := referenceChunked(body)
		got, err, clean := readChunked(body, steps, 1+int(size))
		if ok {
			if err != io.EOF {
				t.Fatalf("%q: net/http reads it whole, we fail: %v", body, err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%q: got %q, want %q", body, got, want)
			}
			if !more && !clean {
				t.Fatalf("%q: nothing follows the body, yet its connection is not kept", body)
			}
			// With more, a read that took some of what follows makes
			// the connection unusable (clean false); one that did not
			// leaves it to the socket check before reuse.
			return
		}
		if err == io.EOF {
			t.Fatalf("%q: net/http refuses it (read %q), we read %q as a whole answer", body, want, got)
		}
	})
}

// TestBodyLength: a body with a length ends there, and one cut short is
// an unexpected EOF.
func TestBodyLength(t *testing.T) {
	b := &bodyReader{src: &stepReader{src: []byte("llo"), steps: []byte{0}}, pending: []byte("he"), mode: bodyLength, left: 5}
	got, err := io.ReadAll(b)
	if err != nil || string(got) != "hello" {
		t.Errorf("got %q, %v", got, err)
	}
	b = &bodyReader{src: &stepReader{src: []byte("he")}, mode: bodyLength, left: 5}
	if _, err := io.ReadAll(b); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut body: %v", err)
	}
}
