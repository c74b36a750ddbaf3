package messages

import (
	"encoding/json"
	"strconv"

	"github.com/toolstream/toolstream/loop/chunk"
)

// The content blocks of an answer, as content_block_start carries them and
// the message object lists them. Each type is its own struct so that every
// field a client requires is written, empty or not: the AI SDK's schema
// requires "text" on a text block and "thinking" on a thinking block, and
// "content" as a list on mcp_tool_result.

type textBlock struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type thinkingBlock struct {
	Type     string `json:"type"` // "thinking"
	Thinking string `json:"thinking"`
	// Signature is empty as the block starts, and comes as a
	// signature_delta as it ends (see [Signature]).
	Signature string `json:"signature"`
}

// toolUseBlock is a tool_use block (a client call) or an mcp_tool_use
// block (a server call, with ServerName).
type toolUseBlock struct {
	Type       string          `json:"type"`
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	ServerName string          `json:"server_name,omitempty"`
	Input      json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	Type      string      `json:"type"` // "mcp_tool_result"
	ToolUseID string      `json:"tool_use_id"`
	IsError   bool        `json:"is_error"`
	Content   []textBlock `json:"content"`
}

// emptyInput is the input a tool_use block starts with; its
// input_json_delta events carry the arguments, as Anthropic streams them.
var emptyInput = json.RawMessage(`{}`)

// inputOf is args as a block's input: a JSON object, or {} when the model
// wrote none or wrote something else.
func inputOf(args []byte) json.RawMessage {
	c := compact(args)
	if len(c) == 0 || c[0] != '{' || !json.Valid(c) {
		return emptyInput
	}
	return c
}

// Delta types of content_block_delta.
const (
	deltaText      = "text_delta"
	deltaThinking  = "thinking_delta"
	deltaInput     = "input_json_delta"
	deltaSignature = "signature_delta"
)

// deltaField is the field a delta type carries its piece in.
func deltaField(kind string) string {
	switch kind {
	case deltaThinking:
		return "thinking"
	case deltaInput:
		return "partial_json"
	case deltaSignature:
		return "signature"
	}
	return "text"
}

// appendDelta appends the data of one content_block_delta event. It is
// the event every token becomes, so it is written by hand rather than
// through encoding/json:
//
//	{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}
func appendDelta(dst []byte, index int, kind, piece string) []byte {
	dst = append(dst, `{"type":"content_block_delta","index":`...)
	dst = strconv.AppendInt(dst, int64(index), 10)
	dst = append(dst, `,"delta":{"type":"`...)
	dst = append(dst, kind...)
	dst = append(dst, `","`...)
	dst = append(dst, deltaField(kind)...)
	dst = append(dst, `":`...)
	dst = chunk.AppendJSONString(dst, piece)
	return append(dst, "}}"...)
}
