//go:build unix

package h1

import (
	"context"
	"fmt"
	"io"
	"net"
	"testing"
	"time"
)

// TestH1Ready: Ready reads bytes already there into the buffer it is
// given, for the Read after it; with none there it parks the buffer and
// returns when the upstream's next bytes came, which the Read after it
// reads; when the answer ends meanwhile — its last chunk and the
// connection's close together, which wake a waiting socket once — the
// Read after it finds the end; an Interrupt cuts it short as it does a
// Read. What Read returns has the chunk framing cut out.
func TestH1Ready(t *testing.T) {
	next := make(chan string)
	srv := newRawServer(t, func(c net.Conn, _ int) bool {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n")
		for s := range next {
			if s == "" {
				io.WriteString(c, "0\r\n\r\n")
				return false // closed with the answer's end
			}
			fmt.Fprintf(c, "%x\r\n%s\r\n", len(s), s)
		}
		return false
	})
	c := newH1(t)
	resp, err := post(t, c, context.Background(), "http://"+srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body := resp.Body.(*Body)
	buf := make([]byte, 64)
	parked := false
	park := func() { parked = true }
	read := func(want string, wantParked bool) {
		t.Helper()
		parked = false
		body.Ready(buf, park)
		n, err := body.Read(buf)
		if string(buf[:n]) != want || err != nil {
			t.Fatalf("read %q, %v; want %q", buf[:n], err, want)
		}
		if parked != wantParked {
			t.Errorf("parked %v, want %v", parked, wantParked)
		}
		if body.r.pending != nil {
			t.Error("the body still views the bytes it read")
		}
	}
	read("first", false) // read with the head

	time.AfterFunc(20*time.Millisecond, func() { next <- "second" })
	read("second", true)

	next <- "now"
	time.Sleep(20 * time.Millisecond) // in the socket before Ready
	read("now", false)

	time.AfterFunc(20*time.Millisecond, body.Interrupt)
	body.Ready(buf, park)
	if n, err := body.Read(buf); n != 0 || err != ErrInterrupted {
		t.Fatalf("read after an interrupted Ready: %d, %v; want ErrInterrupted", n, err)
	}

	time.AfterFunc(20*time.Millisecond, func() { next <- "third"; next <- "" })
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := 0; ; {
			body.Ready(buf[n:], park)
			k, err := body.Read(buf[n:])
			n += k
			if err == io.EOF {
				if string(buf[:n]) != "third" {
					t.Errorf("read %q before the end, want \"third\"", buf[:n])
				}
				return
			}
			if err != nil {
				t.Errorf("read: %v", err)
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Ready waits though the answer ended")
	}
}
