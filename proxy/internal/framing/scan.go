package framing

import (
	"bytes"
	"strconv"
)

// The reasons a head is refused, as the client is told them.
const (
	WhyBoth     = "both Content-Length and Transfer-Encoding"
	WhyObsFold  = "a header line folded onto the next (obs-fold)"
	WhyBareLF   = "a line ending in a bare LF instead of CRLF"
	maxPrefix   = 64 // what is kept of a header line: its name and a short value
	maxChunkHex = 15 // hex digits of a chunk size that cannot overflow an int64
)

type state int

const (
	stHead      state = iota // the request line and header lines
	stBody                   // left bytes of a Content-Length body
	stChunkSize              // a chunk's size line
	stChunkData              // left bytes of a chunk
	stChunkEnd               // the CRLF after a chunk's data
	stTrailer                // trailer lines, up to an empty one
	stDone                   // framing net/http refuses anyway: it closes the connection
)

// scanner follows a connection's bytes from request to request: it reads
// each head, and skips each body by its framing (as net/http reads it:
// chunked wins over Content-Length), so that it finds the next head.
type scanner struct {
	state state
	left  int64 // bytes left of a body or a chunk

	// The line being read.
	line    [maxPrefix]byte
	lineLen int // all its bytes, also those not kept
	prevCR  bool
	lineNo  int // 0 is the request line

	// What the head says so far.
	hasCL, hasTE, chunked, unusual bool
	length                         int64
}

// feed scans p and returns why a head in it is ambiguous, or "".
func (s *scanner) feed(p []byte) string {
	for len(p) > 0 {
		switch s.state {
		case stDone:
			return ""
		case stBody, stChunkData:
			n := int64(len(p))
			if n > s.left {
				n = s.left
			}
			p, s.left = p[n:], s.left-n
			if s.left == 0 {
				if s.state == stBody {
					s.nextHead()
				} else {
					s.state = stChunkEnd
				}
			}
			continue
		}
		b := p[0]
		p = p[1:]
		if why := s.byte(b); why != "" {
			s.state = stDone
			return why
		}
	}
	return ""
}

// byte takes one byte of a line: of the head, a chunk's size line, the
// CRLF after a chunk or a trailer.
func (s *scanner) byte(b byte) string {
	switch b {
	case '\r':
		s.prevCR = true
		return ""
	case '\n':
		if s.state == stHead && !s.prevCR {
			return WhyBareLF
		}
		s.prevCR = false
		why := s.endLine()
		s.lineLen = 0
		return why
	}
	if s.prevCR {
		s.prevCR = false
		s.keep('\r')
	}
	if s.state == stHead && s.lineLen == 0 && s.lineNo > 0 && (b == ' ' || b == '\t') {
		return WhyObsFold
	}
	s.keep(b)
	return ""
}

func (s *scanner) keep(b byte) {
	if s.lineLen < maxPrefix {
		s.line[s.lineLen] = b
	}
	s.lineLen++
}

// kept is what was kept of the line; ok is false when it was longer.
func (s *scanner) kept() (line []byte, ok bool) {
	return s.line[:min(s.lineLen, maxPrefix)], s.lineLen <= maxPrefix
}

// endLine acts on a line that ended.
func (s *scanner) endLine() string {
	switch s.state {
	case stHead:
		if s.lineLen == 0 && s.lineNo == 0 {
			s.state = stDone // no request line: net/http refuses it
			return ""
		}
		if s.lineLen == 0 {
			return s.endHead()
		}
		if s.lineNo > 0 {
			s.header()
		}
		s.lineNo++
	case stChunkSize:
		s.chunkSize()
	case stChunkEnd:
		s.state = stChunkSize
	case stTrailer:
		if s.lineLen == 0 {
			s.nextHead()
		}
	}
	return ""
}

// header notes what a header line says about the body's framing.
func (s *scanner) header() {
	line, ok := s.kept()
	name, value, found := bytes.Cut(line, []byte(":"))
	if !found {
		return // net/http refuses it
	}
	value = bytes.TrimSpace(value)
	switch {
	case bytes.EqualFold(name, []byte("Content-Length")):
		n, err := strconv.ParseInt(string(value), 10, 64)
		if !ok || err != nil || n < 0 || s.hasCL && n != s.length {
			s.unusual = true
		}
		s.hasCL, s.length = true, n
	case bytes.EqualFold(name, []byte("Transfer-Encoding")):
		if !ok || s.hasTE || !bytes.EqualFold(value, []byte("chunked")) {
			s.unusual = true
		}
		s.hasTE, s.chunked = true, true
	}
}

// endHead decides the head, and how its body is to be skipped.
func (s *scanner) endHead() string {
	switch {
	case s.hasCL && s.hasTE:
		return WhyBoth
	case s.unusual:
		s.state = stDone
	case s.chunked:
		s.state = stChunkSize
	case s.length > 0:
		s.state, s.left = stBody, s.length
	default:
		s.nextHead()
	}
	return ""
}

// chunkSize reads a chunk's size line: hex digits, then maybe ";ext".
func (s *scanner) chunkSize() {
	line, ok := s.kept()
	hex, _, _ := bytes.Cut(line, []byte(";"))
	hex = bytes.TrimSpace(hex)
	n, err := strconv.ParseInt(string(hex), 16, 64)
	switch {
	case !ok && bytes.IndexByte(line, ';') < 0, err != nil, len(hex) > maxChunkHex:
		s.state = stDone
	case n == 0:
		s.state = stTrailer
	default:
		s.state, s.left = stChunkData, n
	}
}

// nextHead starts on the next request's head.
func (s *scanner) nextHead() {
	*s = scanner{state: stHead}
}
