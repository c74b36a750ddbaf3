package h1

import (
	"bufio"
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"sync"
)

// MaxHeaderBytes bounds an answer's head: its status line and headers,
// and those of every interim (1xx) answer before it, together, counted as
// read from the connection. It is net/http's DefaultMaxHeaderBytes;
// proxy/upstream sets the same bound as net/http's Transport's
// MaxResponseHeaderBytes (whose own default is 10 MiB), so that both
// refuse the same heads.
const MaxHeaderBytes = 1 << 20

// ErrHeadTooLarge is an answer whose head went past [MaxHeaderBytes]. It
// fails as soon as the bound is passed: a server streaming an endless
// header line costs a mebibyte and no more, and is not waited on until
// header_timeout.
var ErrHeadTooLarge = errors.New("h1: server response headers exceeded " + strconv.Itoa(MaxHeaderBytes) + " bytes")

// h1HeadReader is the size of the pooled reader an answer's head is read
// through (a longer head is read in pieces); the body is read without it
// (see bodyReader).
const h1HeadReader = 1 << 10

var h1HeadReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, h1HeadReader) }}

// headLimit is a connection that gives out MaxHeaderBytes and then fails,
// as net/http's persistConn.Read does while it reads a head. textproto
// reads a header line whole, however long: without the bound a server's
// 200 MiB header line would be a 200 MiB allocation.
type headLimit struct {
	pc *pconn
	n  int64
}

func (l *headLimit) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, ErrHeadTooLarge
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.pc.read(p)
	l.n -= int64(n)
	return n, err
}

// readHead reads an answer's head from pc as net/http's Transport does:
// interim answers (1xx but 101) are skipped, the bound covers them all
// together with the final head, and a malformed line — a status line that
// is not one, a header line without a colon, more than one
// Transfer-Encoding, Content-Lengths that disagree — is refused by the
// same parser. rest are the bytes read past the head: the start of the
// body, or more.
//
// NOTE(h1): net/http once also capped interim answers at 5; it now counts
// their bytes against the head's bound instead, and so does this.
func (pc *pconn) readHead() (resp *http.Response, rest []byte, err error) {
	pc.head = headLimit{pc: pc, n: MaxHeaderBytes}
	br := h1HeadReaders.Get().(*bufio.Reader)
	br.Reset(&pc.head)
	defer func() {
		br.Reset(nil)
		h1HeadReaders.Put(br)
	}()
	for {
		resp, err = http.ReadResponse(br, nil)
		if err != nil {
			if pc.head.n <= 0 {
				err = ErrHeadTooLarge
			}
			return nil, nil, err
		}
		if !isInterim(resp.StatusCode) {
			break
		}
	}
	if br.Buffered() > 0 {
		b, _ := br.Peek(br.Buffered())
		rest = bytes.Clone(b)
	}
	return resp, rest, nil
}

// isInterim reports whether code is an interim answer that the real one
// follows. 101 is final: the connection speaks another protocol after it
// (net/http's issue 26161).
func isInterim(code int) bool {
	return code >= 100 && code <= 199 && code != http.StatusSwitchingProtocols
}

// frame decides from resp's head how its body ends and whether its
// connection may carry another request afterwards.
func (b *Body) frame(resp *http.Response) {
	b.keep = !resp.Close
	switch {
	case resp.StatusCode == http.StatusSwitchingProtocols:
		// The connection speaks another protocol now: nothing on it is
		// an HTTP/1.1 answer any more, so nothing of it is read, and it
		// is never kept.
		b.r.mode, b.r.end, b.keep = bodyLength, true, false
	case !bodyAllowed(resp.StatusCode):
		// A 204 or 304 ends at its head whatever its headers say (RFC
		// 9112 §6.3): a Transfer-Encoding: chunked on one frames no body,
		// and net/http reads none either. Bytes that follow it are not
		// this answer's (see Body.Close).
		b.r.mode, b.r.end = bodyLength, true
	case len(resp.TransferEncoding) > 0:
		// http.ReadResponse accepts no coding but a single "chunked".
		b.r.mode = bodyChunked
	case resp.ContentLength >= 0:
		b.r.mode, b.r.left, b.r.end = bodyLength, resp.ContentLength, resp.ContentLength == 0
	default:
		// Unframed: the body ends when the connection does.
		b.r.mode, b.keep = bodyUntilClose, false
	}
}

// bodyAllowed reports whether an answer with status code may have a body:
// net/http's bodyAllowedForStatus.
func bodyAllowed(code int) bool {
	return !(code >= 100 && code <= 199) && code != http.StatusNoContent && code != http.StatusNotModified
}
