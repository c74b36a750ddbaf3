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

// TestH1Ready: Ready returns when the upstream's next bytes came, and the
// Read after it returns them; when the answer ends meanwhile — its last
// chunk and the connection's close together, which wake a waiting socket
// once — the Read after it finds the end; an Interrupt cuts it short as it
// does a Read. The bytes Ready read go to the body's Read whole, chunk
// framing cut out.
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
	read := func(want string) {
		t.Helper()
		body.Ready()
		n, err := body.Read(buf)
		if string(buf[:n]) != want || err != nil {
			t.Fatalf("read %q, %v; want %q", buf[:n], err, want)
		}
	}
	read("first") // read with the head

	time.AfterFunc(20*time.Millisecond, func() { next <- "second" })
	read("second")
	if body.r.ahead != nil {
		t.Error("the buffer Ready read into is still held after its bytes were read")
	}

	time.AfterFunc(20*time.Millisecond, body.Interrupt)
	body.Ready()
	if n, err := body.Read(buf); n != 0 || err != ErrInterrupted {
		t.Fatalf("read after an interrupted Ready: %d, %v; want ErrInterrupted", n, err)
	}

	time.AfterFunc(20*time.Millisecond, func() { next <- "third"; next <- "" })
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := 0; ; {
			body.Ready()
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
