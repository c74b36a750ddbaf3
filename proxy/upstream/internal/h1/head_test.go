package h1

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"
)

// streamHead writes prefix and then filler in pieces until total bytes
// are written or the client goes, pausing every piece on tick when tick
// is not nil: a server sending an endless head.
func streamHead(prefix, filler string, total int, tick <-chan time.Time) func(net.Conn, int) bool {
	return func(c net.Conn, _ int) bool {
		if _, err := io.WriteString(c, prefix); err != nil {
			return false
		}
		piece := []byte(strings.Repeat(filler, 16<<10/len(filler)))
		for n := 0; n < total; n += len(piece) {
			if tick != nil {
				<-tick
			}
			if _, err := c.Write(piece); err != nil {
				return false
			}
		}
		return false
	}
}

// TestH1HeadBound: an answer's head is read up to MaxHeaderBytes and no
// further: a 200 MiB header line is refused without being allocated, and
// an endless one sent slowly fails once past the bound, long before
// header_timeout.
func TestH1HeadBound(t *testing.T) {
	t.Run("200MiB", func(t *testing.T) {
		srv := newRawServer(t, streamHead("HTTP/1.1 200 OK\r\nX-Big: ", "x", 200<<20, nil))
		tr := newH1(t)
		tr.HeaderTimeout = time.Minute
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := post(t, tr, context.Background(), "http://"+srv.addr)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrHeadTooLarge) {
			t.Errorf("got %v, want ErrHeadTooLarge", err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 8<<20 {
			t.Errorf("reading the head allocated %d MiB", n>>20)
		}
	})
	t.Run("endless line, slowly", func(t *testing.T) {
		tick := time.NewTicker(time.Millisecond)
		t.Cleanup(tick.Stop) // after the server's cleanup, which waits for its writer
		srv := newRawServer(t, streamHead("HTTP/1.1 200 OK\r\nX-Slow: ", "y", 1<<40, tick.C))
		tr := newH1(t)
		tr.HeaderTimeout = 5 * time.Second // 80 MiB at this pace: the bound comes first
		start := time.Now()
		_, err := post(t, tr, context.Background(), "http://"+srv.addr)
		if !errors.Is(err, ErrHeadTooLarge) {
			t.Errorf("got %v after %v, want ErrHeadTooLarge", err, time.Since(start))
		}
	})
}

// TestH1InterimAnswers: interim (1xx) answers before the real one are
// skipped, however many, as net/http skips them; their heads count
// against the one bound, so an endless run of them fails there.
func TestH1InterimAnswers(t *testing.T) {
	many := strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", 50) + "HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n"
	srv := newRawServer(t, writeAll(many+"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
	tr := newH1(t)
	resp, err := post(t, tr, context.Background(), "http://"+srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "ok" || err != nil {
		t.Errorf("got %d %q %v, want 200 \"ok\"", resp.StatusCode, b, err)
	}

	storm := newRawServer(t, streamHead("", "HTTP/1.1 100 Continue\r\n\r\n", 1<<40, nil))
	tr.HeaderTimeout = 5 * time.Second
	if _, err := post(t, tr, context.Background(), "http://"+storm.addr); !errors.Is(err, ErrHeadTooLarge) {
		t.Errorf("a storm of 1xx answers: got %v, want ErrHeadTooLarge", err)
	}
}

// TestH1MalformedHead: a head net/http refuses is refused, once: the
// request was written, so the error is not a NotSentError, and the
// connection, at an unknown place in the server's bytes, is closed.
func TestH1MalformedHead(t *testing.T) {
	for name, head := range map[string]string{
		"garbage status line":     "SSH-2.0-OpenSSH_9.6\r\n\r\n",
		"status not a number":     "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
		"header line no colon":    "HTTP/1.1 200 OK\r\nContent-Length 0\r\n\r\n",
		"two Transfer-Encodings":  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"unknown coding":          "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
		"Content-Lengths differ":  "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok!",
		"Content-Length negative": "HTTP/1.1 200 OK\r\nContent-Length: -2\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			srv := newRawServer(t, writeAll(head))
			tr := newH1(t)
			resp, err := post(t, tr, context.Background(), "http://"+srv.addr)
			if err == nil {
				resp.Body.Close()
				t.Fatalf("accepted %q as a %d", head, resp.StatusCode)
			}
			var ns *NotSentError
			if errors.As(err, &ns) {
				t.Errorf("%v: reported as not sent", err)
			}
			srv.waitClosed(t)
			if n := srv.requests.Load(); n != 1 {
				t.Errorf("server read %d requests, want 1", n)
			}
			if n := tr.idleCount(); n != 0 {
				t.Errorf("%d connections kept", n)
			}
		})
	}
}

// TestH1HeadReadsNoBody: the bytes after a head are the body's, however
// the head was cut into reads (a head longer than the head reader's
// buffer, a body sent with the head).
func TestH1HeadReadsNoBody(t *testing.T) {
	big := "HTTP/1.1 200 OK\r\nX-Pad: " + strings.Repeat("p", 3000) + "\r\nContent-Length: 5\r\n\r\nhello"
	srv := newRawServer(t, writeAll(big))
	tr := newH1(t)
	resp, err := post(t, tr, context.Background(), "http://"+srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(b, []byte("hello")) {
		t.Errorf("body %q", b)
	}
}
