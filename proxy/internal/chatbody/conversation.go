package chatbody

import (
	"encoding/json"

	"github.com/toolstream/toolstream/loop/jsonread"
)

// NewUpstream is the chat body a protocol's request starts from. The
// upstream always streams, with usage: the turn runner reads rounds as
// streams, and the answer is encoded from the turn's events whether the
// client reads them as a stream or as one object.
func NewUpstream() Request {
	return Request{Stream: true, StreamOptions: &StreamOptions{IncludeUsage: true}}
}

// Build sets c's messages to the n places of a conversation, each given
// by at as a chat message's JSON (nil: a place left out, such as one
// still to be restored), and encodes c.
func (c *Request) Build(n int, at func(i int) (json.RawMessage, error)) ([]byte, error) {
	msgs := make([]json.RawMessage, 0, n)
	for i := range n {
		b, err := at(i)
		if err != nil {
			return nil, err
		}
		if b != nil {
			msgs = append(msgs, b)
		}
	}
	c.Messages = msgs
	return c.Encode()
}

// AsMessage is a chat message a caller hands in (from storage), compact;
// ok is false unless it is a JSON object, so that the body built from it
// stays valid JSON.
func AsMessage(m json.RawMessage) (c json.RawMessage, ok bool) {
	c = jsonread.Compact(m)
	if len(c) == 0 || c[0] != '{' || !json.Valid(c) {
		return nil, false
	}
	return c, true
}
