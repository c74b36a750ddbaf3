// Package chatbody holds the chat-completions message types that the
// other client protocols (Responses, Messages) map their requests onto:
// one definition of what the turn runner and the upstream read.
package chatbody

import "encoding/json"

// StreamOptions asks a streaming upstream for usage, which both other
// protocols always report.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Tool is a function tool of the request's "tools".
type Tool struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function is a tool's definition.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// Message is one chat message. Content is a string, a list of Parts, or
// nil (written as null: an assistant message that only calls tools).
type Message struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
	// ReasoningContent is an assistant message's reasoning, sent back to
	// the upstream it came from (vLLM's and SGLang's field, which chat
	// templates of reasoning models read).
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
	// Name is a "tool" message's tool, set only where no assistant
	// message's tool_calls name it: a text-mode round keeps the model's
	// text as it wrote it, and its result frame must still say whose
	// result it is.
	Name string `json:"name,omitempty"`
}

// Part is one part of a message's content: text or an image.
type Part struct {
	Type     string    `json:"type"`
	Text     *string   `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
}

// ImageURL is an image part's address (a URL or a data URL).
type ImageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// ToolCall is one call of an assistant message.
type ToolCall struct {
	ID       string   `json:"id"`
	Type     string   `json:"type"`
	Function CallFunc `json:"function"`
}

// CallFunc is a call's tool and arguments (JSON text).
type CallFunc struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}
