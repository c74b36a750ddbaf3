package history

import (
	"encoding/json"

	"github.com/sashabaranov/go-openai"
	"github.com/valyala/fastjson"
)

// Message is a chat message toolstream writes into a round's history: a
// text message, or an assistant or tool message of a native history.
// Unlike go-openai's message type it writes "content": null next to
// tool_calls, which some local servers require, and never drops an empty
// content; the fields a text message lacks are left out.
type Message struct {
	Role       string            `json:"role"`
	Content    any               `json:"content"`
	ToolCalls  []openai.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string            `json:"tool_call_id,omitempty"`
	// Name is the tool of a "tool" message that a text-mode turn stores
	// (loop's lastMessages): its call is in the model's text, not in a
	// tool_calls list the name could be found in.
	Name string `json:"name,omitempty"`
}

// rawString decodes a string value from its raw JSON, leaving the tree as
// it was (see messageText); anything else is "".
func rawString(v *fastjson.Value) string {
	if v == nil {
		return ""
	}
	// Not v.Type(): it unescapes a string in place.
	var s string
	_ = json.Unmarshal(v.MarshalTo(nil), &s)
	return s
}
