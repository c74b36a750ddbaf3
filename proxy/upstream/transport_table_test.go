package upstream_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/upstream"
)

// scriptServer is an upstream that answers with scripted bytes. Each
// connection is read by its own goroutine: when a request's first byte
// arrives the request is counted and script is called with the
// connection, its reader (the request unread) and the request's number;
// returning false closes the connection. The client's closing a
// connection is reported on clientClosed, the server's on serverClosed.
type scriptServer struct {
	addr         string
	requests     atomic.Int32
	conns        atomic.Int32
	clientClosed chan struct{}
	serverClosed chan struct{}
}

type script func(c *net.TCPConn, br *bufio.Reader, n int) bool

func newScriptServer(t *testing.T, s script) *scriptServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &scriptServer{addr: ln.Addr().String(), clientClosed: make(chan struct{}, 16), serverClosed: make(chan struct{}, 16)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			srv.conns.Add(1)
			mu.Lock()
			open = append(open, c)
			mu.Unlock()
			wg.Go(func() { srv.serve(c.(*net.TCPConn), s) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return srv
}

func (srv *scriptServer) serve(c *net.TCPConn, s script) {
	br := bufio.NewReader(c)
	for {
		if _, err := br.Peek(1); err != nil {
			if errors.Is(err, io.EOF) {
				srv.clientClosed <- struct{}{}
			}
			c.Close()
			return
		}
		if !s(c, br, int(srv.requests.Add(1))) {
			c.Close()
			srv.serverClosed <- struct{}{}
			return
		}
	}
}

// wait waits for an event a script promised, failing after a bound
// that no working transport comes near.
func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s never happened", what)
	}
}

// readRequest reads one whole request, body included.
func readRequest(br *bufio.Reader) bool {
	req, err := http.ReadRequest(br)
	if err != nil {
		return false
	}
	_, err = io.Copy(io.Discard, req.Body)
	return err == nil
}

// answer reads the request and writes raw; the connection stays open.
func answer(raw string) script {
	return func(c *net.TCPConn, br *bufio.Reader, _ int) bool {
		if !readRequest(br) {
			return false
		}
		_, err := io.WriteString(c, raw)
		return err == nil
	}
}

// stream reads the request and writes head and then filler until the
// client goes: an endless head.
func stream(head, filler string) script {
	return func(c *net.TCPConn, br *bufio.Reader, _ int) bool {
		if !readRequest(br) {
			return false
		}
		io.WriteString(c, head)
		piece := []byte(strings.Repeat(filler, 16<<10/len(filler)))
		for {
			if _, err := c.Write(piece); err != nil {
				return false
			}
		}
	}
}

const (
	event  = "data: {\"choices\":[]}\n\n"
	events = event + "data: [DONE]\n\n"
)

// okLength and okChunked are whole event-stream answers.
var (
	okLength  = fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(events), events)
	okChunked = fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(events), events)
)

// transports are the two ways a Client sends a chat request to a
// plain-http server.
var transports = []struct {
	name  string
	setup func(*upstream.Client)
}{
	{"h1", func(*upstream.Client) {}},
	{"net/http", upstream.UseNetHTTP},
}

// newTableClient is a client of srvAddr whose backoffs take no time.
func newTableClient(t *testing.T, addr string) *upstream.Client {
	t.Helper()
	cfg := config.DefaultUpstreamEntry()
	cfg.Name, cfg.BaseURL = "up", "http://"+addr+"/v1"
	cfg.HeaderTimeout, cfg.Timeout = 20*time.Second, 30*time.Second
	c, err := upstream.New(cfg, upstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.SetSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() })
	t.Cleanup(c.Close)
	return c
}

// outcome is what a round came to, in the terms proxy maps to a status:
// the error's type (and for a Failure, whether nothing was sent, or
// whether it was a timeout).
func outcome(err error) string {
	var bs *upstream.BadStatusError
	var ue *loop.UpstreamError
	var f *upstream.Failure
	var se *loop.StreamError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &bs):
		return fmt.Sprintf("bad status %d", bs.Status)
	case errors.As(err, &ue):
		return fmt.Sprintf("upstream error %d", ue.Status)
	case errors.As(err, &f):
		// header_timeout or the round's: an endless head must fail at
		// its bound, long before either.
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
			return "timeout"
		}
		return fmt.Sprintf("failure (not sent: %v)", f.NotSent)
	case errors.As(err, &se):
		return "stream error"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "cut"
	}
	return fmt.Sprintf("%T", err)
}

// round opens a round and reads it to its [DONE].
func round(c *upstream.Client, body []byte) (string, error) {
	st, err := c.Open(context.Background(), body)
	if err != nil {
		return outcome(err), err
	}
	defer st.Close()
	for data, err := range st.Events() {
		if err != nil {
			return "stream: " + outcome(err), err
		}
		if data == "[DONE]" {
			return "ok", nil
		}
	}
	return "no [DONE]", nil
}

// TestTransportTable holds h1 to net/http's Transport: the same scripted
// server answers the same request over each, and the round must come to
// the same outcome — success, or the same error type — with the server
// reading the request as often on both: once, unless nothing of it was
// written or the server answered 429/5xx before a body. A written request
// is never sent again (fails with the resend rule removed from post: the
// failure scripts then read 3 requests).
func TestTransportTable(t *testing.T) {
	big := []byte(`{"pad":"` + strings.Repeat("x", 16<<20) + `"}`)
	for _, tc := range []struct {
		name   string
		script script
		body   []byte
		want   string
		// requests is what the server must read; closes says the client
		// must close the connection after the round; again runs a second
		// round, which must succeed.
		requests int
		closes   bool
		again    bool
	}{
		{name: "ok, length", script: answer(okLength), want: "ok", requests: 1},
		{name: "ok, chunked", script: answer(okChunked), want: "ok", requests: 1},
		{name: "503 then ok", script: func(c *net.TCPConn, br *bufio.Reader, n int) bool {
			if n == 1 {
				return answer("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n")(c, br, n)
			}
			return answer(okLength)(c, br, n)
		}, want: "ok", requests: 2},
		{name: "400", script: answer("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"), want: "upstream error 400", requests: 1},
		{name: "EOF after the request", script: func(c *net.TCPConn, br *bufio.Reader, _ int) bool {
			readRequest(br)
			return false
		}, want: "failure (not sent: false)", requests: 1},
		{name: "RST mid-request", body: big, script: func(c *net.TCPConn, br *bufio.Reader, _ int) bool {
			io.ReadFull(br, make([]byte, 64<<10))
			c.SetLinger(0) // close sends RST
			return false
		}, want: "failure (not sent: false)", requests: 1},
		{name: "garbage status line", script: answer("SSH-2.0-OpenSSH_9.6\r\n\r\n"), want: "failure (not sent: false)", requests: 1},
		{name: "header line without a colon", script: answer("HTTP/1.1 200 OK\r\nContent-Type text/event-stream\r\n\r\n"), want: "failure (not sent: false)", requests: 1},
		{name: "two Transfer-Encodings", script: answer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), want: "failure (not sent: false)", requests: 1},
		{name: "Content-Lengths differ", script: answer("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nok"), want: "failure (not sent: false)", requests: 1},
		{name: "101", script: answer("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"), want: "bad status 101", requests: 1, closes: true},
		{name: "1xx storm, then 200", script: answer(strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", 50) + "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + okLength), want: "ok", requests: 1},
		{name: "endless 1xx", script: stream("", "HTTP/1.1 100 Continue\r\n\r\n"), want: "failure (not sent: false)", requests: 1},
		{name: "204 chunked", script: answer("HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), want: "bad status 204", requests: 1, closes: true},
		{name: "304 chunked", script: answer("HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), want: "bad status 304", requests: 1, closes: true},
		{name: "head over the limit", script: answer("HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("b", 2<<20) + "\r\n\r\n"), want: "failure (not sent: false)", requests: 1},
		{name: "endless header line", script: stream("HTTP/1.1 200 OK\r\nX-Endless: ", "e"), want: "failure (not sent: false)", requests: 1},
		{name: "bytes after a length", script: answer(okLength + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), want: "ok", requests: 1, closes: true},
		{name: "bytes after chunked", script: answer(okChunked + "junk"), want: "ok", requests: 1, closes: true},
		{name: "kept connection closed between requests", script: func(c *net.TCPConn, br *bufio.Reader, n int) bool {
			answer(okLength)(c, br, n)
			return false // closed after the answer, with no Connection: close
		}, want: "ok", requests: 2, again: true},
		{name: "201", script: answer(strings.Replace(okLength, "200 OK", "201 Created", 1)), want: "bad status 201", requests: 1},
		{name: "204", script: answer("HTTP/1.1 204 No Content\r\n\r\n"), want: "bad status 204", requests: 1},
		{name: "cut mid-stream", script: func(c *net.TCPConn, br *bufio.Reader, n int) bool {
			answer(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(event), event))(c, br, n)
			return false
		}, want: "stream: cut", requests: 1},
	} {
		for _, tr := range transports {
			t.Run(tc.name+"/"+tr.name, func(t *testing.T) {
				srv := newScriptServer(t, tc.script)
				c := newTableClient(t, srv.addr)
				tr.setup(c)
				netClosed := make(chan struct{}, 16)
				upstream.OnNetHTTPClose(c, func() { netClosed <- struct{}{} })
				body := tc.body
				if body == nil {
					body = []byte(`{"model":"m","stream":true}`)
				}
				got, err := round(c, body)
				if got != tc.want {
					t.Errorf("got %s (%v), want %s", got, err, tc.want)
				}
				if tc.closes {
					wait(t, srv.clientClosed, "the client closing the connection")
				}
				if tc.again {
					wait(t, srv.serverClosed, "the server closing the connection")
					if tr.name == "net/http" {
						// Its read loop drops the dead connection on its
						// own goroutine; h1 checks one before reuse.
						wait(t, netClosed, "net/http dropping the closed connection")
					}
					if got, err := round(c, body); got != "ok" {
						t.Errorf("second round: %s (%v)", got, err)
					}
				}
				if n := srv.requests.Load(); int(n) != tc.requests {
					t.Errorf("server read %d requests, want %d", n, tc.requests)
				}
			})
		}
	}
}

// TestTransportTableRefused: a server that refuses the connection got
// nothing; the request is tried again (three times, with the backoffs
// made instant) and fails as not sent, on both transports.
func TestTransportTableRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			c := newTableClient(t, addr)
			tr.setup(c)
			if got, err := round(c, []byte(`{}`)); got != "failure (not sent: true)" {
				t.Errorf("got %s (%v)", got, err)
			}
		})
	}
}
