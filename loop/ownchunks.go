package loop

import (
	"strconv"
	"unsafe"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/chunk"
)

// envelope is the start of every chunk toolstream writes itself, up to and
// excluding "choices": the turn's id, object, created and model.
func (s *stream) envelope(dst []byte) []byte {
	s.ensureStarted()
	dst = append(dst, `{"id":`...)
	dst = chunk.AppendJSONString(dst, s.id)
	dst = append(dst, `,"object":"chat.completion.chunk","created":`...)
	dst = strconv.AppendInt(dst, s.created, 10)
	dst = append(dst, `,"model":`...)
	dst = chunk.AppendJSONString(dst, s.model)
	return dst
}

// sendContent writes a chunk carrying only text.
func (s *stream) sendContent(text string) error {
	if !s.out.chunks() {
		if text == "" {
			return nil
		}
		return s.out.text(text)
	}
	return s.sendText("content", text)
}

// sendReasoning writes a chunk carrying only reasoning, as
// delta.reasoning_content (DeepSeek's field, the one clients read).
func (s *stream) sendReasoning(text string) error {
	if !s.out.chunks() {
		if text == "" {
			return nil
		}
		return s.out.reasoning(text)
	}
	return s.sendText("reasoning_content", text)
}

// sendText writes a chunk whose delta carries text in field.
func (s *stream) sendText(field, text string) error {
	if text == "" {
		return nil
	}
	b := s.envelope(s.buf[:0])
	b = append(b, `,"choices":[{"index":0,"delta":{`...)
	if !s.roleSent {
		s.roleSent = true
		b = append(b, `"role":"assistant",`...)
	}
	b = append(b, '"')
	b = append(b, field...)
	b = append(b, `":`...)
	b = chunk.AppendJSONString(b, text)
	b = append(b, `},"finish_reason":null}]}`...)
	s.buf = b
	return s.out.raw(b)
}

// sendFinish writes the turn's finish_reason on an otherwise empty chunk.
func (s *stream) sendFinish(reason string) error {
	if !s.out.chunks() {
		return s.out.finish(reason)
	}
	b := s.envelope(s.buf[:0])
	b = append(b, `,"choices":[{"index":0,"delta":{`...)
	if !s.roleSent {
		s.roleSent = true
		b = append(b, `"role":"assistant"`...)
	}
	b = append(b, `},"finish_reason":`...)
	b = chunk.AppendJSONString(b, reason)
	b = append(b, `}]}`...)
	s.buf = b
	return s.out.raw(b)
}

// sendExtension writes a chunk with an empty delta and toolstream's
// extension object ext (JSON), which standard SDKs ignore (docs/stream.md).
func (s *stream) sendExtension(ext []byte) error {
	b := s.envelope(s.buf[:0])
	b = append(b, `,"choices":[{"index":0,"delta":{`...)
	if !s.roleSent {
		s.roleSent = true
		b = append(b, `"role":"assistant"`...)
	}
	b = append(b, `}}],"toolstream":`...)
	b = append(b, ext...)
	b = append(b, '}')
	s.buf = b
	return s.out.raw(b)
}

// sendToolCalls writes a chunk whose delta carries the tool-call fragments
// frags.
func (s *stream) sendToolCalls(frags []clientFragment) error {
	if !s.out.chunks() {
		e := edits{native: true, frags: frags}
		return s.emitToolCalls(nil, &e)
	}
	b := s.envelope(s.buf[:0])
	b = append(b, `,"choices":[{"index":0,"delta":{`...)
	if !s.roleSent {
		s.roleSent = true
		b = append(b, `"role":"assistant",`...)
	}
	b = append(b, `"tool_calls":`...)
	b = append(b, encodeFragments(frags)...)
	b = append(b, `},"finish_reason":null}]}`...)
	s.buf = b
	return s.out.raw(b)
}

// quote encodes text as a JSON string into the stream's scratch buffer and
// returns a view of it, valid until the next chunk.
func (s *stream) quote(text string) string {
	start := len(s.qbuf)
	s.qbuf = chunk.AppendJSONString(s.qbuf, text)
	q := s.qbuf[start:]
	return unsafe.String(unsafe.SliceData(q), len(q))
}

// blank reports whether a delta carries nothing to show: its visible
// content is empty and every other field is null or "" (DeepSeek ends with
// {"content":"","reasoning_content":null}). It looks at each field's raw
// JSON: asking fastjson for a string's type or value unescapes it in place,
// and a field the proxy does not own must go out as it came.
func blank(delta *fastjson.Value, visible string) bool {
	if visible != "" {
		return false
	}
	if delta == nil {
		return true
	}
	o, err := delta.Object()
	if err != nil {
		return true
	}
	ok := true
	var raw []byte
	o.Visit(func(k []byte, v *fastjson.Value) {
		if string(k) == "content" {
			return
		}
		raw = v.MarshalTo(raw[:0])
		if s := string(raw); s != "null" && s != `""` {
			ok = false
		}
	})
	return ok
}

func isNull(v *fastjson.Value) bool { return v == nil || v.Type() == fastjson.TypeNull }
