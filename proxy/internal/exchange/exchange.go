// Package exchange is the contract between the proxy's one turn route and
// the client protocols it serves (chat completions, Responses, Messages):
// what a protocol reads from a request, what it answers with, and how an
// error looks in its shape. The route (proxy's serveTurn) holds the
// commit point; a protocol never sees echo.
package exchange

import (
	"context"
	"errors"
	"net/http"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/chat"
)

// StatusClientClosed is nginx's and Caddy's status for a client that hung
// up; it is logged, never sent.
const StatusClientClosed = 499

// HeaderDisplay is the request header that overrides loop.display for
// one turn (docs/configuration.md).
const HeaderDisplay = "X-Toolstream-Display"

// ErrUnauthorized is a missing or wrong client key.
var ErrUnauthorized = errors.New("proxy: invalid API key")

// Input is what a protocol reads a turn's request from.
type Input struct {
	// Body is the request body, read whole and checked to be one JSON
	// object within the request budget.
	Body []byte
	// Header is the request's header.
	Header http.Header
	// KeyID is the client key the request came with; empty when the
	// proxy runs without keys.
	KeyID string
}

// Writer is the stream a streamed answer is written to: the proxy's SSE
// writer. Nothing reaches the client before its first write (the commit
// point).
type Writer interface {
	chat.Writer
	// WriteEvent writes one event with a name: "event: <name>" and its
	// data.
	WriteEvent(name string, data []byte) error
	// WriteFrame writes one event framed already.
	WriteFrame(frame []byte) error
}

// Masker hides the config's secrets in what goes to the client.
type Masker interface {
	Bytes(b []byte) []byte
	String(s string) string
}

// Protocol is one client protocol of the turn route.
type Protocol interface {
	// Source names the protocol in the audit log ("chat", "responses",
	// "messages").
	Source() string
	// Read reads a request of the protocol into the turn it asks for.
	// Its errors are answered before the commit point.
	Read(ctx context.Context, in Input) (Turn, error)
	// ErrorAnswer is err, which the proxy decided looks like ae, as the
	// protocol's HTTP error: its status and body, unmasked. A status of
	// [StatusClientClosed] is never sent.
	ErrorAnswer(err error, ae Error) (status int, body []byte)
}

// Turn is one request's side of a turn: the chat request it runs and the
// answer it is written as.
type Turn interface {
	// Request is the chat request the turn runs.
	Request() *loop.Request
	// Stream says the client asked for a streamed answer.
	Stream() bool
	// Relay says a non-streamed turn without server tools may answer with
	// the upstream's own JSON, as it came.
	Relay() bool
	// Start gives the sink the turn runs into, once the turn is routed
	// and gathered; w is the stream of a streamed answer, nil otherwise.
	// Start may change t (Responses brings its conversation whole, and
	// turns history stitching off).
	Start(t *loop.Turn, w Writer) loop.Out
	// Answer is the body of a non-streamed answer of a turn that ended
	// well.
	Answer() ([]byte, error)
	// Fail ends a committed stream with err (which the proxy decided
	// looks like ae) as the protocol's in-band error: the stream then
	// ends with nothing that says it finished.
	Fail(w Writer, err error, ae Error, m Masker) error
}

// LeftOuter is a [Turn] that left parts of its request out: tool types,
// input items or blocks the proxy cannot honour, dropped from the round
// rather than refused, so that a stock agent's request still runs. The
// route logs each kind once per key and hour (package leftout). Kinds
// read as "tool image_generation", "item compaction": what, then its
// type.
type LeftOuter interface {
	LeftOut() []string
}
