package proxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/messages"
)

// BenchmarkMessagesChunkPath is BenchmarkChunkPath for a Messages client:
// the same chunk read and checked, then handed to the encoder as a text
// delta and written as one content_block_delta event. One op is one
// chunk; compare with BenchmarkChunkPath/unchanged and
// BenchmarkResponsesChunkPath.
func BenchmarkMessagesChunkPath(b *testing.B) {
	const chunk = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null}]}`
	const finish = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	m, err := messages.ToChat([]byte(`{"model":"m","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	req, err := loop.ParseRequest(m.Chat)
	if err != nil {
		b.Fatal(err)
	}
	body := &memBody{event: []byte("data: " + chunk + "\n\n"), n: b.N,
		tail: strings.NewReader("data: " + finish + "\n\ndata: [DONE]\n\n")}
	c := echo.New().NewContext(httptest.NewRequest(http.MethodPost, "/v1/messages", nil), &discardWriter{h: http.Header{}})
	sink, err := newSSESink(c, 2*time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	enc := messages.NewStream(sink, messages.Options{ID: "msg_1", Model: "m"})
	var run loop.Runner
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := run.Run(context.Background(), &loop.Turn{Request: req, Upstream: memOpener{body}, UpstreamName: "mem"}, loop.Events(enc)); err != nil {
		b.Fatal(err)
	}
}
