package chatbody

import (
	"encoding/json"
	"strconv"

	"github.com/toolstream/toolstream/loop/chunk"
	"github.com/toolstream/toolstream/loop/jsonread"
)

// Request is the chat-completions body a Responses or Messages request
// becomes. Field order is the order the upstream reads them in; values
// that came from the client unchanged stay raw, and compact, as
// encoding/json would make them.
type Request struct {
	Model             string            `json:"model"`
	Messages          []json.RawMessage `json:"messages"`
	Tools             []Tool            `json:"tools,omitempty"`
	ToolChoice        json.RawMessage   `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool             `json:"parallel_tool_calls,omitempty"`
	MaxTokens         int               `json:"max_tokens,omitempty"`
	Temperature       json.RawMessage   `json:"temperature,omitempty"`
	TopP              json.RawMessage   `json:"top_p,omitempty"`
	Stop              []string          `json:"stop,omitempty"`
	ResponseFormat    json.RawMessage   `json:"response_format,omitempty"`
	ReasoningEffort   string            `json:"reasoning_effort,omitempty"`
	User              string            `json:"user,omitempty"`
	Stream            bool              `json:"stream,omitempty"`
	StreamOptions     *StreamOptions    `json:"stream_options,omitempty"`
	Toolstream        json.RawMessage   `json:"toolstream,omitempty"`
}

// Encode writes c as encoding/json writes it (HTML escaping off), by hand
// but for its tools: every request is built at least once, and
// encoding/json's reflection cost more than reading the request did; over
// a long conversation's messages it also validated and copied each one
// again, into a buffer grown by doubling (40MB for a 10MiB body).
func (c *Request) Encode() ([]byte, error) {
	size := 256 + len(c.Model) + len(c.ToolChoice) + len(c.ResponseFormat) + len(c.Toolstream) + len(c.User)
	for _, m := range c.Messages {
		size += len(m) + 1
	}
	for _, s := range c.Stop {
		size += len(s) + 8
	}
	b := make([]byte, 0, size)
	b = append(b, `{"model":`...)
	b = chunk.AppendJSONString(b, c.Model)
	b = append(b, `,"messages":`...)
	b = AppendRawArray(b, c.Messages)
	if len(c.Tools) > 0 {
		t, err := jsonread.Marshal(c.Tools)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"tools":`...), t...)
	}
	b = appendRawField(b, `,"tool_choice":`, c.ToolChoice)
	if c.ParallelToolCalls != nil {
		b = strconv.AppendBool(append(b, `,"parallel_tool_calls":`...), *c.ParallelToolCalls)
	}
	if c.MaxTokens != 0 {
		b = strconv.AppendInt(append(b, `,"max_tokens":`...), int64(c.MaxTokens), 10)
	}
	b = appendRawField(b, `,"temperature":`, c.Temperature)
	b = appendRawField(b, `,"top_p":`, c.TopP)
	if len(c.Stop) > 0 {
		b = append(b, `,"stop":[`...)
		for i, s := range c.Stop {
			if i > 0 {
				b = append(b, ',')
			}
			b = chunk.AppendJSONString(b, s)
		}
		b = append(b, ']')
	}
	b = appendRawField(b, `,"response_format":`, c.ResponseFormat)
	if c.ReasoningEffort != "" {
		b = chunk.AppendJSONString(append(b, `,"reasoning_effort":`...), c.ReasoningEffort)
	}
	if c.User != "" {
		b = chunk.AppendJSONString(append(b, `,"user":`...), c.User)
	}
	if c.Stream {
		b = append(b, `,"stream":true`...)
	}
	if o := c.StreamOptions; o != nil {
		b = strconv.AppendBool(append(b, `,"stream_options":{"include_usage":`...), o.IncludeUsage)
		b = append(b, '}')
	}
	b = appendRawField(b, `,"toolstream":`, c.Toolstream)
	return append(b, '}'), nil
}

// EncodeMessage is m as JSON. A message of text alone — a user's input,
// the instructions — is written by hand, as encoding/json writes it:
// every request has one, and a long conversation thousands.
func EncodeMessage(m *Message) (json.RawMessage, error) {
	text, ok := m.Content.(string)
	if !ok || len(m.ToolCalls) > 0 || m.ToolCallID != "" || m.ReasoningContent != "" {
		return jsonread.Marshal(m)
	}
	b := make([]byte, 0, len(m.Role)+len(text)+32)
	b = append(b, `{"role":`...)
	b = chunk.AppendJSONString(b, m.Role)
	b = append(b, `,"content":`...)
	b = chunk.AppendJSONString(b, text)
	return append(b, '}'), nil
}

// appendRawField appends key and raw, unless raw is empty (omitempty).
func appendRawField(dst []byte, key string, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return dst
	}
	return append(append(dst, key...), raw...)
}

// AppendRawArray appends items as a JSON array, as encoding/json writes
// a []json.RawMessage: null when nil, an empty item as null. Items are
// written as they are: compact, as encoding/json would make them.
func AppendRawArray(dst []byte, items []json.RawMessage) []byte {
	if items == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, item := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		if len(item) == 0 {
			dst = append(dst, "null"...)
			continue
		}
		dst = append(dst, item...)
	}
	return append(dst, ']')
}
