package chat

import (
	"encoding/json"
	"strconv"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/chunk"
)

// The chunks a chat stream builds itself, of the turn's own output (see
// [loop.Out]): each with the turn's id, object, created and model, and the
// role on the answer's first delta only.

// Begin keeps the turn's identity for the chunks the Stream builds.
func (s *Stream) Begin(b loop.Begin) { s.begin = b }

// Opened notes that an upstream chunk carried the role.
func (s *Stream) Opened() { s.roleSent = true }

// Text writes a chunk carrying text as delta.content.
func (s *Stream) Text(text string) error { return s.sendText("content", text) }

// Reasoning writes a chunk carrying reasoning as delta.reasoning_content
// (DeepSeek's field, the one clients read).
func (s *Stream) Reasoning(text string) error { return s.sendText("reasoning_content", text) }

// sendText writes a chunk whose delta carries text in field.
func (s *Stream) sendText(field, text string) error {
	b := s.delta(s.buf[:0], true)
	b = append(b, '"')
	b = append(b, field...)
	b = append(b, `":`...)
	b = chunk.AppendJSONString(b, text)
	b = append(b, `},"finish_reason":null}]}`...)
	s.buf = b
	return s.w.Send(b)
}

// Finish writes the turn's finish_reason on an otherwise empty chunk.
func (s *Stream) Finish(reason string) error {
	b := s.delta(s.buf[:0], false)
	b = append(b, `},"finish_reason":`...)
	b = chunk.AppendJSONString(b, reason)
	b = append(b, `}]}`...)
	s.buf = b
	return s.w.Send(b)
}

// Event writes a chunk with an empty delta and toolstream's extension
// object, which standard SDKs ignore (docs/stream.md).
func (s *Stream) Event(ev *loop.Event) error {
	ext, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	b := s.delta(s.buf[:0], false)
	b = append(b, `}}],"toolstream":`...)
	b = append(b, ext...)
	b = append(b, '}')
	s.buf = b
	return s.w.Send(b)
}

// fragment is a tool-call delta as a chat stream carries it.
type fragment struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// ToolCall writes a chunk whose delta carries the tool-call fragment f.
func (s *Stream) ToolCall(f loop.ToolCallDelta) error {
	fr := fragment{Index: f.Index, ID: f.ID, Type: "function"}
	fr.Function.Name, fr.Function.Arguments = f.Name, f.Arguments
	calls, err := json.Marshal([]fragment{fr})
	if err != nil {
		return err
	}
	b := s.delta(s.buf[:0], true)
	b = append(b, `"tool_calls":`...)
	b = append(b, calls...)
	b = append(b, `},"finish_reason":null}]}`...)
	s.buf = b
	return s.w.Send(b)
}

// delta starts a chunk of the Stream's own up to the inside of its delta:
// the envelope, then the role when the answer had none yet (followed by a
// comma when more follows).
func (s *Stream) delta(dst []byte, more bool) []byte {
	dst = append(dst, `{"id":`...)
	dst = chunk.AppendJSONString(dst, s.begin.ID)
	dst = append(dst, `,"object":"chat.completion.chunk","created":`...)
	dst = strconv.AppendInt(dst, s.begin.Created, 10)
	dst = append(dst, `,"model":`...)
	dst = chunk.AppendJSONString(dst, s.begin.Model)
	dst = append(dst, `,"choices":[{"index":0,"delta":{`...)
	if !s.roleSent {
		s.roleSent = true
		dst = append(dst, `"role":"assistant"`...)
		if more {
			dst = append(dst, ',')
		}
	}
	return dst
}
