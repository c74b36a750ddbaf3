//go:build unix

package rawio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pair is a connected loopback TCP pair: a is the side under test.
func pair(t *testing.T) (a, b *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		got <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-got
	if s == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return c.(*net.TCPConn), s.(*net.TCPConn)
}

// side is one way of reading and writing a connection: net.Conn's own, or
// a Socket's. The differential tests run each case through both and
// expect the same bytes and the same kind of error.
type side struct {
	name string
	// raw: the calls are raw even under the race detector (forceRaw).
	raw  bool
	open func(t *testing.T, c net.Conn) io.ReadWriter
}

func openSocket(t *testing.T, c net.Conn) io.ReadWriter {
	s := new(Socket)
	if !s.Open(c) {
		t.Fatal("Open found no socket in a TCP connection")
	}
	return s
}

var sides = []side{
	{"net.Conn", false, func(_ *testing.T, c net.Conn) io.ReadWriter { return c }},
	{"rawio", false, openSocket},
	{"rawio raw calls", true, openSocket},
}

// use makes sd's calls the ones its Socket makes until the test ends.
func (sd side) use(t *testing.T) {
	forceRaw = sd.raw
	t.Cleanup(func() { forceRaw = false })
}

// errKind is what a caller can tell of a read or write error.
func errKind(err error) string {
	var ne net.Error
	switch {
	case err == nil:
		return "nil"
	case err == io.EOF:
		return "EOF"
	case errors.Is(err, os.ErrDeadlineExceeded) && errors.As(err, &ne) && ne.Timeout():
		return "deadline"
	case errors.Is(err, net.ErrClosed):
		return "closed"
	case errors.Is(err, syscall.ECONNRESET):
		return "reset"
	case errors.Is(err, syscall.EPIPE):
		return "broken pipe"
	}
	return "other: " + err.Error()
}

// TestSameBytes: what the peer writes in pieces of every size, with pauses
// (so that reads meet EAGAIN and wait), is read the same, up to its EOF;
// and what the side writes in pieces arrives whole.
func TestSameBytes(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			sd.use(t)
			rng := rand.New(rand.NewPCG(1, 2))
			want := make([]byte, 1<<20)
			for i := range want {
				want[i] = byte(rng.Uint32())
			}
			a, b := pair(t)
			rw := sd.open(t, a)
			go func() {
				rng := rand.New(rand.NewPCG(3, 4))
				for rest := want; len(rest) > 0; {
					n := min(len(rest), 1+rng.IntN(9000))
					b.Write(rest[:n])
					rest = rest[n:]
					if n%7 == 0 {
						time.Sleep(time.Millisecond)
					}
				}
				b.CloseWrite()
			}()
			var got bytes.Buffer
			buf := make([]byte, 4096)
			var err error
			for {
				var n int
				n, err = rw.Read(buf[:1+len(got.Bytes())%len(buf)])
				got.Write(buf[:n])
				if err != nil {
					break
				}
			}
			if errKind(err) != "EOF" || !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("read %d bytes (equal %v), ended %v", got.Len(), bytes.Equal(got.Bytes(), want), err)
			}
			if n, err := rw.Read(buf); n != 0 || err != io.EOF {
				t.Errorf("read after EOF: %d, %v", n, err)
			}

			// Writes larger than the socket's buffer wait for the reader.
			done := make(chan []byte)
			go func() {
				all, _ := io.ReadAll(b)
				done <- all
			}()
			for rest := want; len(rest) > 0; {
				n := min(len(rest), 1+rng.IntN(300000))
				if k, err := rw.Write(rest[:n]); k != n || err != nil {
					t.Fatalf("write %d: %d, %v", n, k, err)
				}
				rest = rest[n:]
			}
			a.CloseWrite()
			if all := <-done; !bytes.Equal(all, want) {
				t.Fatalf("peer read %d bytes, want %d", len(all), len(want))
			}
		})
	}
}

// TestSameErrors: deadlines, Close and a peer's reset end a read or a
// write with the error net.Conn gives, as a caller tells them apart.
func TestSameErrors(t *testing.T) {
	cases := []struct {
		name string
		run  func(a, b *net.TCPConn, rw io.ReadWriter) error
	}{
		{"read deadline passed", func(a, _ *net.TCPConn, rw io.ReadWriter) error {
			a.SetReadDeadline(time.Unix(1, 0))
			_, err := rw.Read(make([]byte, 8))
			return err
		}},
		{"read deadline while waiting", func(a, _ *net.TCPConn, rw io.ReadWriter) error {
			a.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			_, err := rw.Read(make([]byte, 8))
			return err
		}},
		{"read deadline, bytes there", func(a, b *net.TCPConn, rw io.ReadWriter) error {
			b.Write([]byte("x"))
			time.Sleep(10 * time.Millisecond)
			a.SetReadDeadline(time.Unix(1, 0))
			_, err := rw.Read(make([]byte, 8))
			return err
		}},
		{"closed while reading", func(a, _ *net.TCPConn, rw io.ReadWriter) error {
			time.AfterFunc(20*time.Millisecond, func() { a.Close() })
			_, err := rw.Read(make([]byte, 8))
			return err
		}},
		{"read after close", func(a, _ *net.TCPConn, rw io.ReadWriter) error {
			a.Close()
			_, err := rw.Read(make([]byte, 8))
			return err
		}},
		{"peer reset", func(_, b *net.TCPConn, rw io.ReadWriter) error {
			b.SetLinger(0)
			b.Close()
			time.Sleep(10 * time.Millisecond)
			_, err := rw.Read(make([]byte, 8))
			return err
		}},
		{"write deadline while the peer reads nothing", func(a, _ *net.TCPConn, rw io.ReadWriter) error {
			a.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
			_, err := rw.Write(make([]byte, 64<<20))
			return err
		}},
		{"write after close", func(a, _ *net.TCPConn, rw io.ReadWriter) error {
			a.Close()
			_, err := rw.Write([]byte("x"))
			return err
		}},
		{"write to a reset peer", func(_, b *net.TCPConn, rw io.ReadWriter) error {
			b.SetLinger(0)
			b.Close()
			time.Sleep(10 * time.Millisecond)
			var err error
			for range 3 {
				if _, err = rw.Write([]byte("x")); err != nil {
					break
				}
			}
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var kinds []string
			for _, sd := range sides {
				forceRaw = sd.raw
				a, b := pair(t)
				kinds = append(kinds, errKind(tc.run(a, b, sd.open(t, a))))
				forceRaw = false
			}
			for i, k := range kinds {
				if k != kinds[0] || k == "nil" {
					t.Errorf("%s: %s, %s: %s", sides[0].name, kinds[0], sides[i].name, k)
				}
			}
		})
	}
}

// TestOpen: only a socket's own connection is one.
func TestOpen(t *testing.T) {
	var s Socket
	if s.Valid() {
		t.Error("the zero Socket is valid")
	}
	a, _ := pair(t)
	if !s.Open(a) || !s.Valid() {
		t.Error("a TCP connection is a socket")
	}
	p, q := net.Pipe()
	defer p.Close()
	defer q.Close()
	if s.Open(p) || s.Valid() {
		t.Error("a pipe is no socket (and the socket opened before is gone)")
	}
}

// TestPeekFD: a peek says what syscall.Recvfrom with MSG_PEEK says, and
// reads nothing: nothing there, a byte there, the peer's end.
func TestPeekFD(t *testing.T) {
	forceRaw = true
	defer func() { forceRaw = false }()
	a, b := pair(t)
	var s Socket
	s.Open(a)
	look := func() (raw string, std string) {
		var p, q [4]byte
		s.Raw().Read(func(fd uintptr) bool {
			n, errno := PeekFD(fd, p[:])
			raw = fmt.Sprintf("%d %q %v", n, p[:n], errno)
			m, _, err := syscall.Recvfrom(int(fd), q[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			var e syscall.Errno
			if err != nil {
				e, m = err.(syscall.Errno), 0
			}
			std = fmt.Sprintf("%d %q %v", m, q[:m], e)
			return true
		})
		return raw, std
	}
	steps := []struct {
		do   func()
		want string
	}{
		{func() {}, "0 \"\" " + syscall.EAGAIN.Error()},
		{func() { b.Write([]byte("hi")); time.Sleep(10 * time.Millisecond) }, "2 \"hi\" errno 0"},
		{func() { b.Close(); time.Sleep(10 * time.Millisecond) }, "2 \"hi\" errno 0"},
		{func() { io.ReadFull(a, make([]byte, 2)) }, "0 \"\" errno 0"},
	}
	for i, st := range steps {
		st.do()
		raw, std := look()
		if raw != std || raw != st.want {
			t.Errorf("step %d: PeekFD %s, Recvfrom %s, want %s", i, raw, std, st.want)
		}
	}
}

// TestNoAllocations: a read and a write allocate nothing, as net.Conn's
// do not; they run once per chunk.
func TestNoAllocations(t *testing.T) {
	a, b := pair(t)
	var s Socket
	s.Open(a)
	buf, msg := make([]byte, 64), []byte("chunk")
	allocs := testing.AllocsPerRun(100, func() {
		b.Write(msg)
		s.Read(buf)
		s.Write(msg)
		b.Read(buf)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per read and write", allocs)
	}
}
