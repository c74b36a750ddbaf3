package loop

import (
	"context"
	"fmt"
	"iter"
	"net/http"

	"github.com/toolstream/toolstream/toolhost/clip"
)

// Upstream opens one round against a model server. proxy implements it with
// its HTTP client; tests use a fake.
type Upstream interface {
	// Open sends body as a streaming chat-completions request. It returns
	// once the upstream answered with an event stream; any other answer is
	// an error (an [*UpstreamError] when the upstream sent a status).
	// Closing the Stream ends the request.
	Open(ctx context.Context, body []byte) (Stream, error)
}

// Stream is one round's event stream.
type Stream interface {
	// Events yields the data of each SSE event in order ("[DONE]"
	// included) and stops after the first error. The end of the body
	// without an error ends the sequence. A data string is only valid
	// until the next one is asked for: keeping one means cloning it.
	Events() iter.Seq2[string, error]
	// Close ends the request and releases the connection.
	Close() error
}

// A Waiter is a Stream that says when it waits for the upstream to send
// more, and whose wait another goroutine can cut short: the goroutine
// reading Events is the only one that writes to the client, and it writes
// what others posted meanwhile (a keepalive, an approval event) when it
// is about to wait, or woken from a wait.
type Waiter interface {
	// OnWait sets wait, which runs on the goroutine reading Events
	// before each read that may wait for the upstream (the moment to
	// write what was posted and flush what the turn's [Out] holds), and again
	// each time an Interrupt cut such a read short, before it reads on.
	OnWait(wait func())
	// Interrupt, from any goroutine and at any time, makes the read
	// waiting for the upstream, or the next one, stop and run wait.
	// Nothing the upstream sent is lost.
	Interrupt()
}

// UpstreamError is a non-2xx answer, or an error event inside a stream,
// from an upstream. It is kept whole so that the client gets the upstream's
// own status and message (docs/http-api.md).
type UpstreamError struct {
	// Upstream is the configured name of the upstream.
	Upstream string
	// Status is the HTTP status; 0 for an error event inside a stream.
	Status int
	// ContentType is the response's Content-Type, if any.
	ContentType string
	// Body is the response body or the error event's data, bounded.
	Body []byte
	// Header holds the response headers a client may act on
	// (Retry-After, rate-limit headers); nil for an error event.
	Header http.Header
}

// Error names the upstream and quotes the start of its answer.
func (e *UpstreamError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("upstream %s: error event in stream: %s", e.Upstream, clip.Excerpt(e.Body, 200))
	}
	return fmt.Sprintf("upstream %s: status %d: %s", e.Upstream, e.Status, clip.Excerpt(e.Body, 200))
}

// StreamError is an upstream stream that broke the protocol mid-way: it was
// cut before it finished, or sent something that is not a chunk.
type StreamError struct {
	Upstream string
	// Reason says what went wrong, in words for the client.
	Reason string
	// Err is the underlying read error, if any.
	Err error
}

// Error names the upstream and what broke.
func (e *StreamError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("upstream %s: %s: %v", e.Upstream, e.Reason, e.Err)
	}
	return fmt.Sprintf("upstream %s: %s", e.Upstream, e.Reason)
}

// Unwrap returns the read error, if any.
func (e *StreamError) Unwrap() error { return e.Err }
