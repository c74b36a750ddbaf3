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
	"github.com/toolstream/toolstream/proxy/responses"
)

// BenchmarkResponsesChunkPath is BenchmarkChunkPath for a Responses
// client: the same chunk read and checked, then handed to the encoder as
// a text delta and written as one response.output_text.delta event. One
// op is one chunk; compare with BenchmarkChunkPath/unchanged.
func BenchmarkResponsesChunkPath(b *testing.B) {
	r, err := responses.ToChat([]byte(`{"model":"m","stream":true,"input":"hi"}`))
	if err != nil {
		b.Fatal(err)
	}
	encoderChunkPath(b, "/v1/responses", r.Chat, func(sink *sseSink) loop.Out {
		return responses.NewEncoder(r, responses.Options{ID: "resp_1", Writer: sink})
	})
}

// BenchmarkMessagesChunkPath is the same for a Messages client: each
// chunk written as one content_block_delta event.
func BenchmarkMessagesChunkPath(b *testing.B) {
	m, err := messages.ToChat([]byte(`{"model":"m","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	encoderChunkPath(b, "/v1/messages", m.Chat, func(sink *sseSink) loop.Out {
		return messages.NewStream(sink, messages.Options{ID: "msg_1", Model: "m"})
	})
}

// encoderChunkPath runs one turn of b.N content chunks, as chat would
// forward them, through the encoder newEnc makes on an SSE sink.
func encoderChunkPath(b *testing.B, path string, chat []byte, newEnc func(*sseSink) loop.Out) {
	const chunk = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null}]}`
	const finish = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	req, err := loop.ParseRequest(chat)
	if err != nil {
		b.Fatal(err)
	}
	body := &memBody{event: []byte("data: " + chunk + "\n\n"), n: b.N,
		tail: strings.NewReader("data: " + finish + "\n\ndata: [DONE]\n\n")}
	c := echo.New().NewContext(httptest.NewRequest(http.MethodPost, path, nil), &discardWriter{h: http.Header{}})
	sink, err := newSSESink(c.Response(), 2*time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	enc := newEnc(sink)
	var run loop.Runner
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := run.Run(context.Background(), &loop.Turn{Request: req, Upstream: memOpener{body}, UpstreamName: "mem"}, enc); err != nil {
		b.Fatal(err)
	}
}
