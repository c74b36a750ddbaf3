package proxy

import (
	"context"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/chat"
	"github.com/toolstream/toolstream/proxy/internal/exchange"
)

// chatProtocol is POST /v1/chat/completions on the turn route: the
// request is the turn's own, and the answer chat chunks, one
// chat.completion, or the upstream's own JSON when the turn has no server
// tools to run.
type chatProtocol struct{}

// Source names the protocol in the audit log.
func (chatProtocol) Source() string { return "chat" }

// Read parses the fields the proxy owns.
func (chatProtocol) Read(_ context.Context, in exchange.Input) (exchange.Turn, error) {
	req, err := loop.ParseRequest(in.Body)
	if err != nil {
		return nil, err
	}
	return &chatAnswer{req: req}, nil
}

// ErrorAnswer is err in OpenAI's shape.
func (chatProtocol) ErrorAnswer(_ error, ae exchange.Error) (int, []byte) {
	return ae.Status, ae.Body()
}

// chatAnswer is one chat request's side of its turn.
type chatAnswer struct {
	req *loop.Request
	col *chat.Collector // a non-streamed answer
}

func (a *chatAnswer) Request() *loop.Request { return a.req }
func (a *chatAnswer) Stream() bool           { return a.req.Stream }
func (a *chatAnswer) Relay() bool            { return true }

// Start gives the turn the stream itself, or a Collector of one
// chat.completion when w is nil.
func (a *chatAnswer) Start(t *loop.Turn, w exchange.Writer) loop.Out {
	if w != nil {
		return chat.NewStream(w)
	}
	a.col = &chat.Collector{Events: t.Loop.Display == config.DisplayEvents}
	return a.col
}

// Answer is the chat.completion of a turn that was not streamed.
func (a *chatAnswer) Answer() ([]byte, error) { return a.col.Completion(), nil }

// Fail ends a committed stream with one error event and no [DONE], so a
// cut stream never looks complete (docs/http-api.md).
func (a *chatAnswer) Fail(w exchange.Writer, _ error, ae exchange.Error, m exchange.Masker) error {
	return w.Send(m.Bytes(ae.Body()))
}
