package upstream_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/loop"
)

// goid is the calling goroutine's id, read from its stack's first line.
func goid() string {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	return string(b[:bytes.IndexByte(b, ' ')])
}

// TestStreamInterrupt: on either transport, Interrupt from another
// goroutine cuts short the read that waits for a silent upstream; the
// wait hook runs again on the goroutine reading Events, and the stream
// then reads on with nothing lost.
func TestStreamInterrupt(t *testing.T) {
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
	done := "data: [DONE]\n\n"
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			release := make(chan struct{})
			srv := newScriptServer(t, func(c *net.TCPConn, br *bufio.Reader, _ int) bool {
				if !readRequest(br) {
					return false
				}
				fmt.Fprintf(c, "%s%x\r\n%s\r\n", head, len(event), event)
				<-release
				_, err := fmt.Fprintf(c, "%x\r\n%s\r\n0\r\n\r\n", len(done), done)
				return err == nil
			})
			c := newTableClient(t, srv.addr)
			tr.setup(c)
			st, err := c.Open(context.Background(), []byte(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			reader := goid()
			var got []string
			waits := 0 // after the first event
			st.(loop.Waiter).OnWait(func() {
				if g := goid(); g != reader {
					t.Errorf("wait ran on goroutine %s, not the reader's %s", g, reader)
				}
				if len(got) == 1 {
					// Once before the read, again when it was
					// interrupted: only then does the upstream go on.
					if waits++; waits == 2 {
						close(release)
					}
				}
			})
			for data, err := range st.Events() {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, strings.Clone(data))
				if len(got) == 1 {
					// The next read waits on a silent upstream.
					time.AfterFunc(20*time.Millisecond, st.(loop.Waiter).Interrupt)
				}
			}
			if want := []string{event[len("data: ") : len(event)-2], "[DONE]"}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("events %q, want %q", got, want)
			}
		})
	}
}

// TestStreamInterruptIdle: interruptions are no bytes from the upstream:
// a silent upstream interrupted often is still given up at idle_timeout.
func TestStreamInterruptIdle(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			st, srv := openSilent(t, tr.setup, 100*time.Millisecond)
			waits := 0
			st.(loop.Waiter).OnWait(func() { waits++ })
			tick := time.NewTicker(10 * time.Millisecond)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				for {
					select {
					case <-tick.C:
						st.(loop.Waiter).Interrupt()
					case <-stop:
						return
					}
				}
			})
			var streamErr error
			for _, err := range st.Events() {
				if err != nil {
					streamErr = err
					break
				}
			}
			close(stop)
			wg.Wait()
			tick.Stop()
			st.Close()
			st.(loop.Waiter).Interrupt() // after Close: nothing
			var se *loop.StreamError
			if !errors.As(streamErr, &se) || !strings.Contains(se.Reason, "idle_timeout") {
				t.Errorf("got %v, want the idle timeout", streamErr)
			}
			if waits < 3 {
				t.Error("no read was interrupted")
			}
			wait(t, srv.clientClosed, "the client closing the connection")
		})
	}
}
