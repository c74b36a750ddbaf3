package messages

import (
	"encoding/json"
	"errors"
)

// chatRequest is the chat-completions body a Messages request becomes.
type chatRequest struct {
	Model             string            `json:"model"`
	Messages          []json.RawMessage `json:"messages"`
	Tools             []chatTool        `json:"tools,omitempty"`
	ToolChoice        json.RawMessage   `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool             `json:"parallel_tool_calls,omitempty"`
	MaxTokens         int               `json:"max_tokens"`
	Temperature       json.RawMessage   `json:"temperature,omitempty"`
	TopP              json.RawMessage   `json:"top_p,omitempty"`
	Stop              []string          `json:"stop,omitempty"`
	User              string            `json:"user,omitempty"`
	Stream            bool              `json:"stream,omitempty"`
	StreamOptions     *streamOptions    `json:"stream_options,omitempty"`
	Toolstream        json.RawMessage   `json:"toolstream,omitempty"`
}

// streamOptions asks a streaming upstream for usage: message_delta
// always carries usage.output_tokens.
type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// chatMessage is one chat message. Content is a string, a list of
// chatParts, or nil (written as null: an assistant message that only
// calls tools).
type chatMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type chatPart struct {
	Type     string        `json:"type"`
	Text     *string       `json:"text,omitempty"`
	ImageURL *chatImageURL `json:"image_url,omitempty"`
}

type chatImageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatCallFunc `json:"function"`
}

type chatCallFunc struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// entry is one place in the conversation: a chat message, or a block
// sent back that the caller restores (see [Request.Restore]).
type entry struct {
	msg     *chatMessage    // built from the request
	raw     json.RawMessage // given by the caller (restored)
	restore *Restored
}

// build writes r.Chat from r's entries; restore placeholders not yet
// replaced are left out.
func (r *Request) build() error {
	msgs := make([]json.RawMessage, 0, len(r.entries))
	for _, e := range r.entries {
		switch {
		case e.msg != nil:
			b, err := marshal(e.msg)
			if err != nil {
				return err
			}
			msgs = append(msgs, b)
		case e.raw != nil:
			msgs = append(msgs, e.raw)
		}
	}
	r.chat.Messages = msgs
	b, err := marshal(&r.chat)
	if err != nil {
		return err
	}
	r.Chat = b
	return nil
}

// errNotMessage is a restored chat message that is not a JSON object.
var errNotMessage = errors.New("messages: a chat message must be a JSON object")

// Restore replaces every block of [Request.Restored] that is still to be
// restored with the chat messages fn returns for it — the rounds that
// block stands for, from the stored turn — in its place in the
// conversation, so an earlier server-tool call is known to the model and
// never run again. An mcp_tool_use block and its mcp_tool_result are two
// entries: fn may give the whole round for the first and nothing for the
// second. An error from fn is returned unchanged and leaves r as it was.
// Chat is rebuilt.
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
		for _, m := range got {
			c := compact(m)
			if len(c) == 0 || c[0] != '{' || !json.Valid(c) {
				return errNotMessage
			}
			out = append(out, entry{raw: c})
		}
	}
	r.entries = out
	return r.build()
}
