package responses

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

// entry is one place in the conversation: a chat message, or an item
// sent back as input that the caller restores (see [Request.Restore]).
type entry struct {
	msg     *chatMessage    // built from the input
	raw     json.RawMessage // given by the caller (stored or restored)
	restore *Restored
	// ids are the output items of an earlier response the entry was
	// read from, in order: an assistant message item and the
	// function_call items that joined it (see Request.Resend).
	ids []string
	// json is msg encoded, once: Chat is built again when a stored
	// conversation is prepended or items are restored, and a stored
	// response keeps the conversation too.
	json json.RawMessage
}

// encoded is e's message as JSON.
func (e *entry) encoded() (json.RawMessage, error) {
	if e.json == nil {
		b, err := chatbody.EncodeMessage(e.msg)
		if err != nil {
			return nil, err
		}
		e.json = b
	}
	return e.json, nil
}

// build writes r.Chat from r's entries; restore placeholders not yet
// replaced are left out.
func (r *Request) build() error {
	b, err := r.chat.Build(len(r.entries), func(i int) (json.RawMessage, error) {
		switch e := &r.entries[i]; {
		case e.msg != nil:
			return e.encoded()
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

// errNotMessage is a stored or restored chat message that is not a JSON
// object.
var errNotMessage = errors.New("responses: a chat message must be a JSON object")

// checkMessages makes sure each message the caller hands in is an object,
// so the body built from them stays valid JSON.
func checkMessages(msgs []json.RawMessage) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		c, ok := chatbody.AsMessage(m)
		if !ok {
			return nil, errNotMessage
		}
		out[i] = c
	}
	return out, nil
}

// Prepend puts a stored conversation's chat messages before the request's
// own, after the system message made from "instructions" when there is
// one: with previous_response_id the new request's instructions apply and
// the earlier ones do not (as OpenAI documents), so the stored messages
// should not hold them. Chat is rebuilt.
func (r *Request) Prepend(stored []json.RawMessage) error {
	msgs, err := checkMessages(stored)
	if err != nil {
		return err
	}
	at := 0
	if r.Instructions != "" {
		at = 1
	}
	add := make([]entry, len(msgs))
	for i, m := range msgs {
		add[i] = entry{raw: m}
	}
	r.entries = append(r.entries[:at:at], append(add, r.entries[at:]...)...)
	return r.build()
}

// Restore replaces every item of [Request.Restored] that is still to be
// restored with the chat messages fn returns for it — the rounds that
// item stands for, from the stored turn — in its place in the
// conversation, so an earlier server-tool call is known to the model and
// never run again. An error from fn is returned unchanged and leaves r as
// it was. Chat is rebuilt.
func (r *Request) Restore(fn func(Restored) ([]json.RawMessage, error)) error {
	out := make([]entry, 0, len(r.entries))
	for _, e := range r.entries {
		if e.restore == nil {
			out = append(out, e)
			continue
		}
		got, err := fn(*e.restore)
		if err != nil {
			return err
		}
		msgs, err := checkMessages(got)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			out = append(out, entry{raw: m})
		}
	}
	r.entries = joinCalls(out)
	return r.build()
}

// joinCalls makes each assistant message that only calls tools part of
// the assistant message just before it: restored items stand for one
// message each, but the model wrote its text and its calls as one, and
// chat templates that require roles to alternate refuse two assistant
// messages in a row. A message is copied before it changes.
func joinCalls(entries []entry) []entry {
	out := make([]entry, 0, len(entries))
	for _, e := range entries {
		if n := len(out); n > 0 {
			if calls := callsOnly(e); calls != nil {
				if prev := assistantOf(out[n-1]); prev != nil {
					if s, ok := prev.Content.(string); ok && s == "" {
						prev.Content = nil
					}
					prev.ToolCalls = append(prev.ToolCalls[:len(prev.ToolCalls):len(prev.ToolCalls)], calls...)
					out[n-1] = entry{msg: prev}
					continue
				}
			}
		}
		out = append(out, e)
	}
	return out
}

// assistantOf is a copy of e's message when it is an assistant message
// whose content is text or null and that has no other fields; nil
// otherwise.
func assistantOf(e entry) *chatMessage {
	if e.msg != nil {
		if e.msg.Role != "assistant" {
			return nil
		}
		if _, parts := e.msg.Content.([]chatPart); parts {
			return nil
		}
		m := *e.msg
		return &m
	}
	var fields map[string]json.RawMessage
	if e.raw == nil || json.Unmarshal(e.raw, &fields) != nil {
		return nil
	}
	m := &chatMessage{}
	for k, v := range fields {
		var err error
		switch k {
		case "role":
			err = json.Unmarshal(v, &m.Role)
		case "content":
			var s *string
			if err = json.Unmarshal(v, &s); err == nil && s != nil {
				m.Content = *s
			}
		case "tool_calls":
			err = json.Unmarshal(v, &m.ToolCalls)
		default:
			return nil
		}
		if err != nil {
			return nil
		}
	}
	if m.Role != "assistant" {
		return nil
	}
	return m
}

// callsOnly is the tool calls of e when it is an assistant message that
// only calls tools; nil otherwise.
func callsOnly(e entry) []chatToolCall {
	m := assistantOf(e)
	if m == nil || len(m.ToolCalls) == 0 {
		return nil
	}
	if s, ok := m.Content.(string); m.Content != nil && (!ok || s != "") {
		return nil
	}
	return m.ToolCalls
}

// Conversation returns the conversation Chat holds, as chat messages,
// without the system message made from "instructions": what a stored
// response keeps for a request that continues it, whose own instructions
// apply (see [Request.Prepend]). Placeholders not yet restored are left
// out.
func (r *Request) Conversation() ([]json.RawMessage, error) {
	var out []json.RawMessage
	for i := range r.entries {
		e := &r.entries[i]
		switch {
		case i == 0 && r.Instructions != "" && e.msg != nil:
			// the instructions
		case e.msg != nil:
			b, err := e.encoded()
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		case e.raw != nil:
			out = append(out, e.raw)
		}
	}
	return out, nil
}
