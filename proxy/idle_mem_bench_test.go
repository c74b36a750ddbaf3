package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/wiring"
	"github.com/toolstream/toolstream/toolhost"
)

// idleRoutes are the streams the idle measures open: a plain streamed turn
// on each route as the SDKs send it, and chat's in text mode.
var idleRoutes = []struct {
	name, path, body string
	text             bool
}{
	{"chat", "/v1/chat/completions", `{"model":"bench","stream":true,"messages":[{"role":"user","content":"add a task"}]}`, false},
	{"chat-text", "/v1/chat/completions", `{"model":"bench","stream":true,"messages":[{"role":"user","content":"add a task"}]}`, true},
	{"responses", "/v1/responses", `{"model":"bench","stream":true,"input":"add a task"}`, false},
	{"messages", "/v1/messages", `{"model":"bench","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"add a task"}]}`, false},
}

// BenchmarkIdleStreamMemory opens streams that hold still after their
// first content chunk, as toolstream-bench's idle scenario does, and
// reports what the proxy holds per open stream: heap (live after a
// collection), goroutine stacks, and goroutines. Clients and the upstream
// are raw sockets driven from the benchmark's own goroutine, so that the
// figures are the proxy's alone (but for the two loopback sockets of each
// stream, a few hundred bytes). b.N is not used: each sub-benchmark opens
// a fixed number of streams once.
func BenchmarkIdleStreamMemory(b *testing.B) {
	for _, c := range idleRoutes {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				idleStreams(b, 200, c.path, c.body, c.text)
			}
		})
	}
}

// idleStreams serves the proxy in front of a raw upstream, opens n
// streams one by one, waits for each one's first chunk, and reports the
// proxy's memory per open stream.
func idleStreams(b *testing.B, n int, path, body string, text bool) {
	before, after := openIdle(b, n, path, body, text)
	b.ReportMetric(float64(after.heap-before.heap)/float64(n), "heap-B/stream")
	b.ReportMetric(float64(after.stack-before.stack)/float64(n), "stack-B/stream")
	b.ReportMetric(float64(after.heap+after.stack-before.heap-before.stack)/float64(n), "B/stream")
	b.ReportMetric(float64(after.goroutines-before.goroutines)/float64(n), "goroutines/stream")
	// What opening a stream allocated, kept or not: until the collector
	// runs, the process holds that too.
	b.ReportMetric(float64(after.allocated-before.allocated)/float64(n), "alloc-B/stream")
}

// openIdle opens n idle streams as idleStreams says and returns the
// process's memory before and with them open; they close on return.
func openIdle(b testing.TB, n int, path, body string, text bool) (before, after mem) {
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer up.Close()
	srv, stop := idleProxy(b, "http://"+up.Addr().String(), text)
	defer stop()
	req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", path, len(body), body)

	var clients, upstreams []net.Conn
	defer func() {
		for _, c := range append(clients, upstreams...) {
			c.Close()
		}
	}()
	// The benchmark's own reading allocates once, not per stream: what it
	// allocates counts in alloc-B/stream too.
	br, buf := bufio.NewReader(nil), make([]byte, 4096)
	open := func() {
		c, err := net.Dial("tcp", srv)
		if err != nil {
			b.Fatal(err)
		}
		clients = append(clients, c)
		if _, err := io.WriteString(c, req); err != nil {
			b.Fatal(err)
		}
		for {
			u, err := up.Accept()
			if err != nil {
				b.Fatal(err)
			}
			if answerFirstChunk(b, br, u) {
				upstreams = append(upstreams, u)
				break
			}
			u.Close() // a health check's
		}
		readUntil(b, c, buf, "hold")
	}
	open() // the first stream warms up what every stream shares
	settle()
	before = memNow()
	for range n {
		open()
	}
	settle()
	return before, memNow()
}

// idleProxy serves the proxy on loopback as `serve` does, in front of
// the upstream at url; text puts it in text mode with one webhook tool.
func idleProxy(b testing.TB, url string, text bool) (addr string, stop func()) {
	cfg := config.Default()
	u := config.DefaultUpstreamEntry()
	u.Name, u.BaseURL, u.Models = "up", url, config.Models("*")
	cfg.Upstreams = []config.Upstream{u}
	cfg.Storage.InMemory = true
	cfg.Loop.Keepalive = 0
	if text {
		cfg.Upstreams[0].ToolMode, cfg.Upstreams[0].TextFormat = config.ToolModeText, config.TextFormatHermes
		cfg.Tools = []config.Tool{{Name: "create_task", Description: "Create a task.", Webhook: &config.Webhook{URL: url + "/create_task"}}}
	}
	st, err := wiring.Open(context.Background(), cfg.Storage, nil)
	if err != nil {
		b.Fatal(err)
	}
	var host *toolhost.Host
	if text {
		if host, err = toolhost.New(cfg.Tools, st.Host(toolhost.Options{})); err != nil {
			b.Fatal(err)
		}
	}
	p, err := proxy.New(&cfg, st.Proxy(proxy.Options{}, host, nil))
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	done := make(chan struct{})
	go func() {
		defer close(done)
		hs.Serve(proxy.Listener(hs, ln))
	}()
	return ln.Addr().String(), func() {
		hs.Close()
		<-done
		p.Close()
		if host != nil {
			host.Close()
		}
		st.Close()
	}
}

// answerFirstChunk reads one request from an upstream connection and
// answers the head of a stream and its first content chunk, then holds;
// any other request than a chat round gets a 404 and false.
func answerFirstChunk(b testing.TB, br *bufio.Reader, c net.Conn) bool {
	br.Reset(c)
	size := 0
	first, err := br.ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	if !strings.HasPrefix(first, "POST ") || !strings.Contains(first, "/chat/completions") {
		io.WriteString(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		return false
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		if v, ok := strings.CutPrefix(strings.ToLower(line), "content-length:"); ok {
			size, _ = strconv.Atoi(strings.TrimSpace(v))
		}
		if line == "\r\n" {
			break
		}
	}
	if _, err := br.Discard(size); err != nil {
		b.Fatal(err)
	}
	ev := "data: {\"id\":\"cmpl-idle\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"hold \"},\"finish_reason\":null}]}\n\n"
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
	if _, err := fmt.Fprintf(c, "%s%x\r\n%s\r\n", head, len(ev), ev); err != nil {
		b.Fatal(err)
	}
	return true
}

// readUntil reads c until want has arrived, into buf: the answer's
// head and first event fit.
func readUntil(b testing.TB, c net.Conn, buf []byte, want string) {
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	n := 0
	for !bytes.Contains(buf[:n], []byte(want)) {
		if n == len(buf) {
			b.Fatalf("no %q in %q", want, buf)
		}
		k, err := c.Read(buf[n:])
		if err != nil {
			b.Fatalf("%v after %q", err, buf[:n])
		}
		n += k
	}
}

// mem is the process's live heap, goroutine stacks and goroutines, and
// what it allocated in all.
type mem struct{ heap, stack, goroutines, allocated int }

func settle() {
	time.Sleep(100 * time.Millisecond)
	runtime.GC()
	runtime.GC() // the second shrinks the stacks the first found oversized, and frees what finalizers let go
}

func memNow() mem {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return mem{heap: int(ms.HeapAlloc), stack: int(ms.StackInuse), goroutines: runtime.NumGoroutine(), allocated: int(ms.TotalAlloc)}
}
