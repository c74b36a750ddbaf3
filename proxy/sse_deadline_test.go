package proxy

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// deadlineConn records, on a server's connection, each write and each
// write deadline set, in order; the deadlines are not applied.
type deadlineConn struct {
	net.Conn
	mu  *sync.Mutex
	log *[]string
}

func (c deadlineConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	*c.log = append(*c.log, "write")
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c deadlineConn) SetWriteDeadline(time.Time) error {
	c.mu.Lock()
	*c.log = append(*c.log, "deadline")
	c.mu.Unlock()
	return nil
}

type deadlineListener struct {
	net.Listener
	mu  sync.Mutex
	log []string
}

func (l *deadlineListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return deadlineConn{Conn: c, mu: &l.mu, log: &l.log}, nil
}

// TestSinkDeadlineBeforeEveryWrite: every write that reaches the client's
// connection comes after a fresh write deadline, through net/http's own
// buffering, held or not — while a held run of small events, which stays
// in net/http's buffer, does not look at the clock for each.
func TestSinkDeadlineBeforeEveryWrite(t *testing.T) {
	small := "event: content_block_delta\ndata: " + strings.Repeat("x", 100) + "\n\n"
	big := "event: content_block_delta\ndata: " + strings.Repeat("x", 3000) + "\n\n"
	for _, tc := range []struct {
		name      string
		hold      bool
		frames    []string
		flushEach int
		// fewer: fewer deadlines than events — the clock is not read
		// for each event of a held run.
		fewer bool
	}{
		{"held small events, flushed in runs", true, repeat(small, 200), 10, true},
		{"held small events, one flush at the end", true, repeat(small, 200), 0, true},
		{"held events bigger than the buffer", true, repeat(big, 10), 3, false},
		{"not held", false, repeat(small, 20), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := sinkLog(t, tc.hold, tc.frames, tc.flushEach, time.Nanosecond) // a deadline every time the clock is looked at
			fresh, deadlines := false, 0
			for i, e := range log {
				if e == "end" {
					break
				}
				switch e {
				case "deadline":
					fresh = true
					deadlines++
				case "write":
					if !fresh {
						t.Fatalf("write %d reached the connection with no deadline set since the last: %v", i, log)
					}
					fresh = false
				}
			}
			if tc.fewer && deadlines >= len(tc.frames) {
				t.Errorf("%d deadlines set for %d held events: the clock was looked at for each", deadlines, len(tc.frames))
			}
		})
	}
}

// sinkLog serves one stream of frames through an SSE sink, holding or
// not, flushed every flushEach frames (0: at the end only), and returns
// what reached the connection: each write and each write deadline set,
// then "end" where the handler returned.
func sinkLog(t *testing.T, hold bool, frames []string, flushEach int, writeIdle time.Duration) []string {
	t.Helper()
	ln := &deadlineListener{Listener: httptest.NewUnstartedServer(nil).Listener}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, _ := newSSESink(w, writeIdle)
		_ = s.Hold(hold)
		for i, f := range frames {
			if err := s.WriteFrame([]byte(f)); err != nil {
				t.Error(err)
				return
			}
			if flushEach > 0 && (i+1)%flushEach == 0 {
				_ = s.Flush()
			}
		}
		_ = s.Flush()
		// What net/http writes after the handler (the last chunk) is
		// not the sink's.
		ln.mu.Lock()
		ln.log = append(ln.log, "end")
		ln.mu.Unlock()
	}))
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := strings.Join(frames, ""); string(body) != want {
		t.Fatalf("body of %d bytes, want %d", len(body), len(want))
	}
	ln.mu.Lock()
	defer ln.mu.Unlock()
	return slices.Clone(ln.log)
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
