package h1

import (
	"bytes"
	"errors"
	"io"
	"math"
)

// bodyReader reads an answer's body from the connection straight into the
// caller's buffer: a chunked body is decoded in place there, its framing
// cut out. The connection keeps no buffer of its own while a stream waits
// on it, and the bytes are copied once, not from a read buffer into the
// caller's.
type bodyReader struct {
	src io.Reader
	// pending are body bytes read together with the answer's head.
	pending []byte

	// mode is how the body ends: at a length, after its last chunk, or
	// when the connection closes. left is what is left of the body
	// (length) or of the current chunk (chunked).
	mode int
	left int64

	// st is where a chunked body stands; line gathers a size or trailer
	// line that a read cut.
	st   int
	crlf int
	line []byte
	// excess is the framing read beyond what data justifies.
	excess int64

	// end says the body ended where the framing says; err is a framing
	// error, after which nothing more is read. over says bytes past the
	// end were read with it: the server sent more than its answer.
	end  bool
	over bool
	err  error
}

// clean reports whether the body ended exactly where its framing says,
// with nothing of the connection read past it: only then may the
// connection carry another request. Bytes past an answer are no answer to
// anything; dropped, the next request could read the rest of them as its
// own (net/http closes such a connection too, as an "unsolicited
// response").
func (b *bodyReader) clean() bool {
	return b.end && b.err == nil && !b.over && len(b.pending) == 0
}

const (
	bodyLength = iota
	bodyChunked
	bodyUntilClose
)

// Where a chunked body stands between reads.
const (
	chunkSize    = iota // in a chunk-size line
	chunkData           // in a chunk's data (left bytes of it to go)
	chunkDataEnd        // in the CRLF after the data (crlf bytes of it read)
	chunkTrailer        // in the trailer, after the last chunk
	maxChunkLine = 4096 // a size or trailer line longer than this is refused
)

var errChunked = errors.New("malformed chunked encoding")

// Read fills p with body bytes. It returns io.EOF at the body's end, and
// io.ErrUnexpectedEOF when the connection ends before it; ErrInterrupted,
// from its source, it passes on without keeping it.
func (b *bodyReader) Read(p []byte) (int, error) {
	for {
		if b.err != nil {
			return 0, b.err
		}
		if b.end {
			return 0, io.EOF
		}
		if len(p) == 0 {
			return 0, nil
		}
		in := p
		if b.mode == bodyLength && int64(len(in)) > b.left {
			in = in[:b.left]
		}
		var n int
		var err error
		if len(b.pending) > 0 {
			n = copy(in, b.pending)
			if b.pending = b.pending[n:]; len(b.pending) == 0 {
				// An idle stream keeps no view of the bytes it read: the
				// head's rest, or the reader's buffer (Body.Ready).
				b.pending = nil
			}
		} else {
			n, err = b.src.Read(in)
		}
		switch b.mode {
		case bodyLength:
			b.left -= int64(n)
			b.end = b.left == 0
		case bodyChunked:
			n = b.decode(p[:n])
		}
		if err == ErrInterrupted && b.err == nil {
			return n, err // not the body's error: the next Read goes on
		}
		switch {
		case b.err != nil:
			err = b.err
		case err == io.EOF && b.mode == bodyUntilClose:
			b.end, err = true, nil
		case err == io.EOF && !b.end:
			err = io.ErrUnexpectedEOF
		case err == io.EOF:
			err = nil
		}
		if err != nil {
			b.err = err
			return n, err
		}
		if n > 0 {
			return n, nil
		}
		// Only framing came: read on.
	}
}

// decode cuts the chunked framing out of raw, in place, and returns how
// many data bytes are left at its start.
func (b *bodyReader) decode(raw []byte) int {
	out := 0
	for i := 0; i < len(raw); {
		switch b.st {
		case chunkData:
			n := min(int64(len(raw)-i), b.left)
			out += copy(raw[out:], raw[i:i+int(n)])
			i += int(n)
			b.left -= n
			if b.left == 0 {
				b.st = chunkDataEnd
			}
		case chunkDataEnd:
			// The CRLF after a chunk's data, which a read may cut in two.
			if raw[i] != "\r\n"[b.crlf] {
				b.err = errChunked
				return out
			}
			i++
			if b.crlf++; b.crlf == 2 {
				b.st, b.crlf = chunkSize, 0
			}
		case chunkSize, chunkTrailer:
			line, next, whole := b.takeLine(raw, i)
			if !whole {
				return out
			}
			i = next
			if b.st == chunkTrailer {
				if b.trailerLine(line) {
					// Bytes past the end of the answer: the body is
					// whole, as net/http reads it, but the connection
					// is not kept.
					b.over = i < len(raw)
					return out
				}
				if b.err != nil {
					return out
				}
				continue // a trailer field: not kept
			}
			if !b.sizeLine(line) {
				return out
			}
		}
	}
	return out
}

// takeLine takes the line at raw[i:] up to its LF, joined to what earlier
// reads left of it, and where the next one starts. whole is false when
// the line goes on in the next read (b.line keeps it) or is too long
// (b.err says so).
func (b *bodyReader) takeLine(raw []byte, i int) (line []byte, next int, whole bool) {
	j := i
	for j < len(raw) && raw[j] != '\n' {
		j++
	}
	if len(b.line)+j-i > maxChunkLine {
		b.err = errChunked
		return nil, 0, false
	}
	if j == len(raw) {
		b.line = append(b.line, raw[i:]...) // the line goes on in the next read
		return nil, 0, false
	}
	line = raw[i:j]
	if len(b.line) > 0 {
		b.line = append(b.line, line...)
		line = b.line
	}
	b.line = b.line[:0]
	return line, j + 1, true
}

// sizeLine reads a chunk-size line (its LF cut off) and starts the chunk;
// false when the line is refused (b.err says so).
func (b *bodyReader) sizeLine(line []byte) bool {
	// A chunk line ends in CRLF, and holds no other CR (RFC 9112
	// errata 7633; net/http refuses the same).
	if len(line) == 0 || bytes.IndexByte(line, '\r') != len(line)-1 {
		b.err = errChunked
		return false
	}
	line = line[:len(line)-1]
	size, ok := parseChunkSize(line)
	// Framing beyond 16 bytes a chunk plus twice its data is a
	// sender padding the stream with non-data (net/http's rule).
	b.excess = max(b.excess+int64(len(line))+2-16-2*size, 0)
	if !ok || b.excess > 16<<10 {
		b.err = errChunked
		return false
	}
	if size == 0 {
		b.st = chunkTrailer
	} else {
		b.st, b.left = chunkData, size
	}
	return true
}

// trailerLine reads a line after the last chunk (its LF cut off), and
// reports whether it ended the body; a refused line sets b.err. net/http
// ends the body at a CRLF right after the last chunk, and refuses
// "0\r\n\n" ending the answer. A trailer it reads only when a CRLFCRLF
// comes up within its read buffer; read in place there is no looking
// ahead, so a trailer here is CRLF lines, each a field with a colon, up to
// an empty one — stricter than net/http only for bare-LF trailer lines.
func (b *bodyReader) trailerLine(line []byte) (end bool) {
	if len(line) == 0 || line[len(line)-1] != '\r' {
		b.err = errChunked
		return false
	}
	line = line[:len(line)-1]
	if len(line) == 0 {
		b.end = true
		return true
	}
	if bytes.IndexByte(line, ':') <= 0 {
		b.err = errChunked
	}
	return false
}

// parseChunkSize reads a chunk-size line as net/http does: blanks at its
// end and an extension after ";" are dropped, and the rest is hex digits.
func parseChunkSize(line []byte) (int64, bool) {
	for len(line) > 0 && (line[len(line)-1] == ' ' || line[len(line)-1] == '\t') {
		line = line[:len(line)-1]
	}
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	if len(line) == 0 || len(line) > 16 { // net/http reads at most 16 digits
		return 0, false
	}
	var n uint64
	for _, c := range line {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		n = n<<4 | uint64(d)
	}
	if n > math.MaxInt64 {
		return 0, false // no answer is that long; net/http fails reading it too
	}
	return int64(n), true
}
