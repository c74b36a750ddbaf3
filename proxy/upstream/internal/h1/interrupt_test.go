package h1

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"
)

// TestH1Interrupt: Interrupt ends a Read waiting on the connection with
// ErrInterrupted, or the next Read when none waits; the body then reads on
// with nothing lost, and read to its end leaves its connection, its
// deadline cleared, for the next request. An Interrupt after Close does
// not touch the connection the next request carries.
func TestH1Interrupt(t *testing.T) {
	release := make(chan struct{})
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first")
		w.(http.Flusher).Flush()
		if r.URL.Path == "/wait" {
			<-release
		}
		io.WriteString(w, "second")
	})
	c := newH1(t)
	resp, err := post(t, c, context.Background(), srv.URL+"/wait")
	if err != nil {
		t.Fatal(err)
	}
	body := resp.Body.(*Body)
	buf := make([]byte, 64)
	n, err := body.Read(buf)
	if string(buf[:n]) != "first" || err != nil {
		t.Fatalf("read %q, %v", buf[:n], err)
	}

	// None waits: the next Read is interrupted, at once.
	body.Interrupt()
	body.Interrupt() // twice is once
	if n, err := body.Read(buf); n != 0 || err != ErrInterrupted {
		t.Fatalf("read after Interrupt: %d, %v; want ErrInterrupted", n, err)
	}
	// One waits: it is interrupted.
	time.AfterFunc(20*time.Millisecond, body.Interrupt)
	if n, err := body.Read(buf); n != 0 || err != ErrInterrupted {
		t.Fatalf("waiting read: %d, %v; want ErrInterrupted", n, err)
	}
	close(release)
	rest, err := io.ReadAll(body)
	if string(rest) != "second" || err != nil {
		t.Fatalf("read on %q, %v; want \"second\"", rest, err)
	}
	body.Close()
	body.Interrupt() // after Close: nothing

	for range 2 {
		resp, err := post(t, c, context.Background(), srv.URL+"/at-once")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "firstsecond" || err != nil {
			t.Fatalf("next request: %q, %v", b, err)
		}
	}
	if got := srv.accepted(); got != 1 {
		t.Errorf("%d connections, want 1: an interrupted body still keeps its connection", got)
	}
}

// TestH1InterruptKill: a body whose connection was closed under it (the
// context's end) reports that, not an interruption, though one is
// pending.
func TestH1InterruptKill(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := newH1(t)
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := post(t, c, ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body := resp.Body.(*Body)
	buf := make([]byte, 64)
	body.Read(buf)
	cancel()
	body.Interrupt()
	for range 3 {
		if _, err = body.Read(buf); err != ErrInterrupted {
			break
		}
	}
	if err == nil || errors.Is(err, ErrInterrupted) {
		t.Errorf("read after the context's end: %v, want the connection's end", err)
	}
}
