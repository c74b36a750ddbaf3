package messages

import (
	"encoding/json"
	"errors"

	"github.com/toolstream/toolstream/proxy/internal/chatbody"
)

// The chat message types, shared with the other protocol (chatbody).
type (
	chatRequest  = chatbody.Request
	chatTool     = chatbody.Tool
	chatFunction = chatbody.Function
	chatMessage  = chatbody.Message
	chatPart     = chatbody.Part
	chatImageURL = chatbody.ImageURL
	chatToolCall = chatbody.ToolCall
	chatCallFunc = chatbody.CallFunc
)

// entry is one place in the conversation: a chat message, or a block
// sent back that the caller restores (see [Request.Restore]).
type entry struct {
	msg     *chatMessage    // built from the request
	raw     json.RawMessage // given by the caller (restored)
	restore *Restored
	// group numbers the entries of one assistant message that holds
	// restored blocks (from 1); 0 for every other entry.
	group int
}

// build writes r.Chat from r's entries; restore placeholders not yet
// replaced are left out.
func (r *Request) build() error {
	b, err := r.chat.Build(len(r.entries), func(i int) (json.RawMessage, error) {
		switch e := r.entries[i]; {
		case e.msg != nil:
			return chatbody.EncodeMessage(e.msg)
		default:
			return e.raw, nil
		}
	})
	if err != nil {
		return err
	}
	r.Chat = b
	return nil
}

// encoded is e as a chat message: what the caller gave, or the message
// built from the request.
func (e entry) encoded() (json.RawMessage, error) {
	if e.raw != nil {
		return e.raw, nil
	}
	return marshal(e.msg)
}

// errNotMessage is a restored chat message that is not a JSON object.
var errNotMessage = errors.New("messages: a chat message must be a JSON object")

// Restore puts the stored rounds of an earlier answer in place of the
// blocks of [Request.Restored], so an earlier server-tool call is known to
// the model and never run again. fn is asked for each block still to be
// restored, in order, and returns the chat messages it stands for — from
// the stored turn. It is given the chat messages that come before the
// answer holding the block, earlier answers already restored: the
// conversation the stored turn must belong to. Each call's before extends
// the last one's. An mcp_tool_use block and its mcp_tool_result are two
// blocks: fn may give the whole round for the first and nothing for the
// second.
//
// An assistant message holding such blocks was one answer of toolstream's,
// and the stored turn holds all of it — its text and its tool calls as the
// model wrote them — so when fn gives messages for any of its blocks, they
// replace the whole message. When fn gives nothing for all of them, the
// message keeps its text and tool_use blocks, split where the restored
// blocks were. An error from fn is returned unchanged and leaves r as it
// was. Chat is rebuilt.
func (r *Request) Restore(fn func(before []json.RawMessage, b Restored) ([]json.RawMessage, error)) error {
	out := make([]entry, 0, len(r.entries))
	var before []json.RawMessage
	// ask is fn, given out as chat messages; each entry is encoded once.
	ask := func(b Restored) ([]json.RawMessage, error) {
		for k := len(before); k < len(out); k++ {
			raw, err := out[k].encoded()
			if err != nil {
				return nil, err
			}
			out[k] = entry{raw: raw}
			before = append(before, raw)
		}
		return fn(before, b)
	}
	for i := 0; i < len(r.entries); {
		e := r.entries[i]
		if e.group == 0 {
			// A chat message kept as it is, or a restored block outside
			// an answer (in a user message), restored in its place.
			i++
			if e.restore == nil {
				out = append(out, e)
				continue
			}
			got, err := restoreAll([]entry{e}, ask)
			if err != nil {
				return err
			}
			out = append(out, got...)
			continue
		}
		j := i + 1
		for j < len(r.entries) && r.entries[j].group == e.group {
			j++
		}
		got, err := restoreAll(r.entries[i:j], ask)
		if err != nil {
			return err
		}
		if len(got) > 0 {
			out = append(out, got...) // the whole answer
		} else {
			for _, k := range r.entries[i:j] {
				if k.restore == nil {
					out = append(out, k)
				}
			}
		}
		i = j
	}
	r.entries = out
	return r.build()
}

// restoreAll asks fn for each restored block among es and returns what it
// gave, as entries.
func restoreAll(es []entry, fn func(Restored) ([]json.RawMessage, error)) ([]entry, error) {
	var got []entry
	for _, e := range es {
		if e.restore == nil {
			continue
		}
		msgs, err := fn(*e.restore)
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			c, ok := chatbody.AsMessage(m)
			if !ok {
				return nil, errNotMessage
			}
			got = append(got, entry{raw: c})
		}
	}
	return got, nil
}
