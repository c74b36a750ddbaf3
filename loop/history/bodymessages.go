package history

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/jsonread"
)

// Apart splits a request body into its skeleton — the body with
// its messages array replaced by 0, small however long the conversation
// — and its messages as written, views of body. A round parses the
// skeleton and the one message it may change, not the body: a tree of
// every message, built again each round, cost some hundreds of bytes per
// message.
func Apart(body []byte) (skeleton []byte, msgs []json.RawMessage, err error) {
	start, end, ok := jsonread.Span(body, "messages")
	if !ok {
		return nil, nil, errors.New("the request has no messages")
	}
	if body[start] != '[' {
		return nil, nil, errors.New("the request's messages are not an array")
	}
	msgs = jsonread.ValidElements(body[start:end]) // Span checked the body
	skeleton = make([]byte, 0, len(body)-(end-start)+1)
	skeleton = append(skeleton, body[:start]...)
	skeleton = append(skeleton, '0')
	return append(skeleton, body[end:]...), msgs, nil
}

// Join writes the round's request: head, the skeleton as the
// round changed it, with its messages in place of the 0 — sys (a system
// message of toolstream's own) when not nil, the client's messages, the
// first one as first when the round changed it, then added. The client's
// messages are compacted as they are copied, as fastjson would write
// them. extra is at least what the round adds to the messages (its
// prompt, its messages), so that the body is written in one allocation.
func Join(head []byte, sys, first *fastjson.Value, msgs []json.RawMessage, added []*fastjson.Value, extra int) ([]byte, error) {
	start, end, ok := jsonread.Span(head, "messages")
	if !ok {
		return nil, errors.New("re-reading the request: its messages are lost")
	}
	size := len(head) + len(msgs) + extra
	for _, m := range msgs {
		size += len(m)
	}
	out := bytes.NewBuffer(make([]byte, 0, size))
	out.Write(head[:start])
	out.WriteByte('[')
	n := 0
	sep := func() {
		if n > 0 {
			out.WriteByte(',')
		}
		n++
	}
	writeValue := func(v *fastjson.Value) {
		sep()
		// Marshalled straight into out's room, sized for it: Write
		// then copies the bytes onto themselves. A scratch slice of its
		// own grew to the taught prompt's size for every round.
		out.Write(v.MarshalTo(out.AvailableBuffer()))
	}
	if sys != nil {
		writeValue(sys)
	}
	for i, m := range msgs {
		if i == 0 && first != nil {
			writeValue(first)
			continue
		}
		sep()
		if err := json.Compact(out, m); err != nil {
			return nil, err
		}
	}
	for _, m := range added {
		writeValue(m)
	}
	out.WriteByte(']')
	out.Write(head[end:])
	return out.Bytes(), nil
}
