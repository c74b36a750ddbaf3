package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestSinkHeadOneWrite: a held run of events that overflows what net/http
// keeps back before the head (a Responses stream's response.created and
// response.in_progress, a copy of the response object each) reaches the
// connection in one write, with the head, when the run is flushed: not
// in one write for the head and the events before the overflow and
// another for the rest.
func TestSinkHeadOneWrite(t *testing.T) {
	frame := "event: response.created\ndata: " + strings.Repeat("x", 900) + "\n\n"
	frames := repeat(frame, 3) // 2.8 KiB: over net/http's 2 KiB, under its connection's 4 KiB buffer
	ln := &deadlineListener{Listener: httptest.NewUnstartedServer(nil).Listener}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, _ := newSSESink(w, time.Minute)
		_ = s.Hold(true)
		for _, f := range frames {
			if err := s.WriteFrame([]byte(f)); err != nil {
				t.Error(err)
				return
			}
		}
		_ = s.Flush()
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
	writes := 0
	for _, e := range ln.log {
		if e == "end" {
			break
		}
		if e == "write" {
			writes++
		}
	}
	if writes != 1 {
		t.Errorf("head and events reached the connection in %d writes, want 1: %v", writes, ln.log)
	}
}
