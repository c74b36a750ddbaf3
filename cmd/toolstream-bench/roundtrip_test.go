package main

import (
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRoundTrips: each closing event goes out with a call number of its
// own, and a webhook request carrying that number is set against it,
// whatever order the requests come in; a request naming no call, or one
// already counted, counts as not matched.
func TestRoundTrips(t *testing.T) {
	u := newBenchUpstream(4, 16)
	if u.closeCall.head == nil {
		t.Fatal("the scripted call answer has no event that closes its block")
	}
	var r roundTrips
	first, second := r.next(u.closeCall), r.next(u.closeCall)
	for i, ev := range [][]byte{first, second} {
		want := `bench-` + strconv.Itoa(i+1) + `\"}}\n</tool_call>"`
		if !contains(ev, want) {
			t.Errorf("closing event %d: %s, want it to carry %s", i+1, ev, want)
		}
	}
	at := time.Now().Add(time.Millisecond)
	for _, body := range []string{
		`{"name":"create_task","arguments":{"title":"bench-2"}}`,
		`{"name":"create_task","arguments":{"title":"bench-1"}}`,
		`{"name":"create_task","arguments":{"title":"bench-1"}}`, // counted already
		`{"name":"create_task","arguments":{"title":"bench"}}`,   // no number
	} {
		r.arrived([]byte(body), at)
	}
	took, lost := r.take()
	if len(took) != 2 || lost != 2 {
		t.Fatalf("took %v, %d not matched; want 2 round trips and 2 not matched", took, lost)
	}
	for _, d := range took {
		if d < time.Millisecond || d > time.Minute {
			t.Errorf("round trip %s, want from the close to the arrival", d)
		}
	}
	if took, lost := r.take(); len(took) != 0 || lost != 0 {
		t.Errorf("a second take gave %v, %d; want a fresh start", took, lost)
	}
}

func contains(b []byte, s string) bool { return strings.Contains(string(b), s) }

// FuzzCallNumber: reading a call number from any webhook body never
// panics, and a number written after "bench-" reads back.
func FuzzCallNumber(f *testing.F) {
	f.Add([]byte(`{"title":"bench-17"}`), int64(17))
	f.Add([]byte(`bench-`), int64(0))
	f.Add([]byte(`bench-99999999999999999999`), int64(1))
	f.Fuzz(func(t *testing.T, body []byte, n int64) {
		callNumber(body)
		if n < 0 {
			return
		}
		got, ok := callNumber(append([]byte(`{"title":"bench-`+strconv.FormatInt(n, 10)+`"}`), body...))
		if !ok || got != n {
			t.Fatalf("bench-%d read back as %d, %v", n, got, ok)
		}
	})
}

// TestArrivedAt: a request's arrival is when its bytes reached the
// server, not when its handler ran, and on a kept-alive connection each
// request gets its own: never an earlier request's, never one from
// before it was sent.
func TestArrivedAt(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	type seen struct{ arrived, handled time.Time }
	got := make(chan seen, 1)
	srv := &http.Server{ConnContext: stampContext, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		time.Sleep(20 * time.Millisecond) // a handler that starts late
		got <- seen{arrivedAt(r), time.Now()}
	})}
	var serving sync.WaitGroup
	serving.Go(func() { srv.Serve(newStampListener(ln)) })
	defer func() {
		srv.Close()
		serving.Wait()
	}()
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	post := func() seen {
		resp, err := c.Post("http://"+ln.Addr().String()+"/create_task", "application/json", strings.NewReader(`{"title":"bench-1"}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return <-got
	}
	// The kernel turns stamping on a moment after the first socket asks
	// (from a work queue): compare's upstream listens long before its
	// first webhook request, a test waits for it.
	for deadline := time.Now().Add(10 * time.Second); runtime.GOOS == "linux" && time.Now().Before(deadline); {
		if s := post(); s.handled.Sub(s.arrived) >= 15*time.Millisecond {
			break
		}
	}
	for i := range 3 {
		sent := time.Now()
		s := post()
		if s.arrived.Before(sent) || s.arrived.After(s.handled) {
			t.Errorf("request %d: arrived %s after it was sent, handled %s after; want between", i, s.arrived.Sub(sent), s.handled.Sub(sent))
		}
		if runtime.GOOS == "linux" && s.handled.Sub(s.arrived) < 15*time.Millisecond {
			t.Errorf("request %d: arrival stamped %s before its late handler ran; want the kernel's stamp, 20ms earlier", i, s.handled.Sub(s.arrived))
		}
	}
}
