package h1

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// headBound is a reader bounded while on, as net/http's persistConn is
// while it reads a head.
type headBound struct {
	r  io.Reader
	n  int64
	on bool
}

func (h *headBound) Read(p []byte) (int, error) {
	if !h.on {
		return h.r.Read(p)
	}
	if h.n <= 0 {
		return 0, ErrHeadTooLarge
	}
	if int64(len(p)) > h.n {
		p = p[:h.n]
	}
	n, err := h.r.Read(p)
	h.n -= int64(n)
	return n, err
}

// reference is what net/http's Transport makes of a server's bytes:
// http.ReadResponse with interim answers skipped and the head bounded by
// MaxHeaderBytes (the bound proxy/upstream gives it), and the body read
// to its end.
type reference struct {
	headErr  error
	status   int
	body     []byte
	bodyErr  error
	keepable bool
}

func referenceResponse(data []byte) reference {
	src := &headBound{r: bytes.NewReader(data), n: MaxHeaderBytes, on: true}
	br := bufio.NewReader(src)
	var resp *http.Response
	var err error
	for {
		if resp, err = http.ReadResponse(br, nil); err != nil {
			return reference{headErr: err}
		}
		if !isInterim(resp.StatusCode) {
			break
		}
	}
	src.on = false
	ref := reference{status: resp.StatusCode}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// net/http hands the connection over as the body; nothing of it
		// is an HTTP body.
		return ref
	}
	ref.body, ref.bodyErr = io.ReadAll(resp.Body)
	// Whether the connection may carry another request, as far as the
	// answer's own framing says: not closed, its body's end known.
	ref.keepable = !resp.Close && ref.bodyErr == nil &&
		(!bodyAllowed(resp.StatusCode) || len(resp.TransferEncoding) > 0 || resp.ContentLength >= 0)
	return ref
}

// FuzzResponse answers a Post with arbitrary server bytes and holds what
// h1 makes of them to net/http's reading of the same bytes: the head
// accepted or refused alike, the same status, the same body (or a failed
// read where net/http's fails), and a connection offered back to the
// pool only when net/http's framing would allow it. One difference is
// allowed: a chunked trailer with bare-LF lines, which net/http reads
// only when a CRLFCRLF comes up in its buffer, is refused after the last
// data byte. Nothing may panic or hang; the head's bound keeps every
// allocation to about the input.
func FuzzResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-T: 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\n\r\nuntil close",
		"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n\x00\x00",
		"HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"HTTP/1.1 304 Not Modified\r\nContent-Length: 7\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nNo-Colon\r\n\r\n",
		"HTTP/1.1 099 Low\r\nContent-Length: 1\r\n\r\nx",
		"SSH-2.0-OpenSSH_9.6\r\n",
		"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ref := referenceResponse(data)

		served := make(chan struct{})
		tr := &Transport{IdleTimeout: time.Minute, MaxIdle: 1, HeaderTimeout: 10 * time.Second}
		tr.dial = func(context.Context, string, string) (net.Conn, error) {
			client, server := net.Pipe()
			go func() {
				defer close(served)
				defer server.Close()
				if req, err := http.ReadRequest(bufio.NewReader(server)); err == nil {
					io.Copy(io.Discard, req.Body)
				}
				server.Write(data) // until h1 reads it all, or closes the connection
			}()
			return client, nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := tr.Post(ctx, &Request{Addr: "upstream:80", Host: "upstream", Path: "/v1/chat/completions", Body: []byte(`{}`)})
		defer func() {
			tr.CloseIdleConnections()
			<-served
			if ctx.Err() != nil {
				t.Fatalf("%q: hung", data)
			}
		}()
		if (err == nil) != (ref.headErr == nil) {
			t.Fatalf("%q: head: h1 %v, net/http %v", data, err, ref.headErr)
		}
		if err != nil {
			var ns *NotSentError
			if errors.As(err, &ns) {
				t.Fatalf("%q: a written request reported not sent: %v", data, err)
			}
			return
		}
		if resp.StatusCode != ref.status {
			t.Fatalf("%q: status %d, net/http %d", data, resp.StatusCode, ref.status)
		}
		body, err := io.ReadAll(resp.Body)
		b := resp.Body.(*Body)
		offered := b.keep && b.r.clean()
		resp.Body.Close()
		if resp.StatusCode == http.StatusSwitchingProtocols {
			if len(body) != 0 || err != nil || offered {
				t.Fatalf("%q: a 101 read %q (%v), kept %v", data, body, err, offered)
			}
			return
		}
		if ref.bodyErr == nil && err != nil && b.r.st == chunkTrailer && errors.Is(err, errChunked) && bytes.Equal(body, ref.body) {
			// Our trailer is stricter than net/http's: bare-LF lines
			// there are refused (see bodyReader.decode). Every data
			// byte came; only the connection is not kept.
			return
		}
		if ref.bodyErr == nil && (err != nil || !bytes.Equal(body, ref.body)) {
			t.Fatalf("%q: body %q (%v), net/http %q", data, body, err, ref.body)
		}
		if ref.bodyErr != nil && err == nil {
			t.Fatalf("%q: body %q read whole, net/http fails: %v", data, body, ref.bodyErr)
		}
		if offered && !ref.keepable {
			t.Fatalf("%q: connection kept where net/http's framing does not allow it", data)
		}
	})
}
