package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/chat"
	"github.com/toolstream/toolstream/proxy/upstream"
)

// discardWriter is a ResponseWriter that flushes into nothing.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Flush()                      {}

// SetWriteDeadline is supported, as on a real connection.
func (d *discardWriter) SetWriteDeadline(time.Time) error { return nil }

// memBody is an upstream response body that repeats one SSE event n times.
type memBody struct {
	event []byte
	n     int
	tail  *strings.Reader
	off   int
}

func (m *memBody) Read(p []byte) (int, error) {
	if m.n == 0 {
		return m.tail.Read(p)
	}
	k := copy(p, m.event[m.off:])
	m.off += k
	if m.off == len(m.event) {
		m.off = 0
		m.n--
	}
	return k, nil
}

func (m *memBody) Close() error { return nil }

type memOpener struct{ body io.ReadCloser }

func (o memOpener) Open(ctx context.Context, body []byte) (loop.Stream, error) {
	return upstream.StreamOf(o.body, "mem", 2<<20), nil
}

// BenchmarkChunkPath is the whole per-chunk path of a streaming turn,
// without sockets: go-sse reads the upstream event, fastjson checks it, the
// SSE writer sends and flushes it. One op is one chunk. "unchanged"
// repeats one content chunk, which a plain turn passes unparsed once it
// has seen it (loop's sameShape); "rewrite" (an alias) parses and
// re-encodes every chunk.
func BenchmarkChunkPath(b *testing.B) {
	const chunk = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null}]}`
	const finish = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	for _, tc := range []struct{ name, model string }{{"unchanged", "m"}, {"rewrite", "alias"}} {
		b.Run(tc.name, func(b *testing.B) {
			req, err := loop.ParseRequest([]byte(`{"model":"` + tc.model + `","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
			if err != nil {
				b.Fatal(err)
			}
			body := &memBody{event: []byte("data: " + chunk + "\n\n"), n: b.N,
				tail: strings.NewReader("data: " + finish + "\n\ndata: [DONE]\n\n")}
			c := echo.New().NewContext(httptest.NewRequest(http.MethodPost, "/v1/chat/completions", nil), &discardWriter{h: http.Header{}})
			sink, err := newSSESink(c.Response(), 2*time.Minute)
			if err != nil {
				b.Fatal(err)
			}
			var r loop.Runner
			b.SetBytes(int64(len(chunk)))
			b.ReportAllocs()
			b.ResetTimer()
			if _, err := r.Run(context.Background(), &loop.Turn{Request: req, Upstream: memOpener{body}, UpstreamName: "mem"}, chat.NewStream(sink)); err != nil {
				b.Fatal(err)
			}
		})
	}
}
