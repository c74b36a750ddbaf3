package loop

import (
	"encoding/json"

	"github.com/valyala/fastjson"
)

// The turn as typed events, for an Out that does not take chat chunks
// (Responses, Messages, chat's collected answer). The turn emits what it
// found of each chunk on its way — the text it read, the reasoning it
// split off, the client's tool calls it kept — and reads of the parsed
// chunk only the fields it did not touch: nothing is parsed twice, and no
// Out reads JSON of the turn's making.

// edits is what step made of a chunk's delta, for emitChoice.
type edits struct {
	// reasoning is what the think split took out of the content; it
	// stands for the delta's reasoning_content.
	reasoning string
	// text is the content as the client sees it, when read says the
	// turn read it.
	text string
	read bool
	// native says the delta's tool calls went through the round's native
	// calls, which left frags of them for the client.
	native bool
	frags  []clientFragment
	// fingerprint is the chunk's system_fingerprint, read only for an
	// Out that takes Meta.
	fingerprint string
}

// emitChoice hands one chunk's first choice to the Out in the order a
// reader of the chunk meets it: reasoning, text, tool calls, then the stop
// sequence and the finish. The delta — whose fields looked for are mostly
// missing, and a search for a missing field reads the object again — is
// walked once for the fields it has; text and reasoning go out as views
// of the parsed chunk (see [Out.Text]).
func (s *stream) emitChoice(c0, delta *fastjson.Value, e *edits, finish string) error {
	metas := s.out.metas()
	if metas && delta == nil {
		s.out.meta(Meta{Fingerprint: e.fingerprint})
	}
	if delta != nil {
		var rc, r, content, tcs *fastjson.Value
		visit(delta, func(k []byte, f *fastjson.Value) {
			switch string(k) {
			case "reasoning_content":
				rc = first(rc, f)
			case "reasoning":
				r = first(r, f)
			case "content":
				content = first(content, f)
			case "tool_calls":
				tcs = first(tcs, f)
			}
		})
		if metas {
			s.emitMeta(rc, r, content, e)
			r = nil // its text went in the Meta
		}
		rt := e.reasoning
		if rt == "" && rc != nil {
			rt = str(rc)
		}
		if rt != "" {
			if err := s.out.reasoning(rt); err != nil {
				return err
			}
		}
		if r != nil {
			if t := str(r); t != "" {
				if err := s.out.reasoning(t); err != nil {
					return err
				}
			}
		}
		t := e.text
		if !e.read && content != nil {
			t = str(content)
		}
		if t != "" {
			if err := s.out.text(t); err != nil {
				return err
			}
		}
		if err := s.emitToolCalls(tcs, e); err != nil {
			return err
		}
	}
	if finish == "" {
		return nil
	}
	if finish == "stop" {
		if err := s.emitStopSequence(c0); err != nil {
			return err
		}
	}
	return s.out.finish(finish)
}

// emitMeta tells an Out that takes Meta which of the delta's fields rc
// (reasoning_content), r (reasoning) and content a client of chat chunks
// would have read as strings: the chunk as sent has reasoning_content when
// the think split took reasoning out of the content, and no content when
// that took all of it.
func (s *stream) emitMeta(rc, r, content *fastjson.Value, e *edits) {
	m := Meta{
		Fingerprint:      e.fingerprint,
		Content:          isString(content) && !(e.read && e.text == "" && e.reasoning != ""),
		ReasoningContent: e.reasoning != "" || isString(rc),
		Reasoning:        isString(r),
	}
	if m.Reasoning {
		m.ReasoningText = str(r)
	}
	s.out.meta(m)
}

// emitToolCalls hands on the client's tool-call fragments: those the
// round's native calls left, or the delta's own tcs in a turn that does
// not filter them.
func (s *stream) emitToolCalls(tcs *fastjson.Value, e *edits) error {
	if e.native {
		for _, f := range e.frags {
			if err := s.out.toolCall(ToolCallDelta{Index: f.Index, ID: f.ID, Name: f.Function.Name, Arguments: f.Function.Arguments}); err != nil {
				return err
			}
		}
		return nil
	}
	if tcs == nil || tcs.Type() != fastjson.TypeArray {
		return nil
	}
	for _, tc := range tcs.GetArray() {
		f := ToolCallDelta{
			Index:     tc.GetInt("index"),
			ID:        string(tc.GetStringBytes("id")),
			Name:      string(tc.GetStringBytes("function", "name")),
			Arguments: string(tc.GetStringBytes("function", "arguments")),
		}
		if err := s.out.toolCall(f); err != nil {
			return err
		}
	}
	return nil
}

// emitStopSequence tells the Out the stop sequence the upstream named for
// an answer that finished with "stop". A number there is a stop token's
// id, not a sequence the client sent.
func (s *stream) emitStopSequence(c0 *fastjson.Value) error {
	for _, k := range [...]string{"stop_reason", "matched_stop"} {
		if v := c0.Get(k); v != nil && v.Type() == fastjson.TypeString && len(v.GetStringBytes()) > 0 {
			return s.out.stopSequence(string(v.GetStringBytes()))
		}
	}
	return nil
}

// emitHeld hands a held chunk v to the Out: its first choice as it stands
// now, then usage — sum, the turn's usage summed over rounds, when set,
// else the chunk's own.
func (s *stream) emitHeld(v *fastjson.Value, sum string) error {
	if c := v.GetArray("choices"); len(c) > 0 {
		var delta *fastjson.Value
		if d := c[0].Get("delta"); d != nil && d.Type() == fastjson.TypeObject {
			delta = d
		}
		e := edits{}
		if s.out.metas() {
			e.fingerprint = fingerprint(v)
		}
		if err := s.emitChoice(c[0], delta, &e, string(c[0].GetStringBytes("finish_reason"))); err != nil {
			return err
		}
	}
	return s.emitUsage(v.Get("usage"), sum)
}

// emitUsage hands on the usage sum when set, else u when it is an object.
func (s *stream) emitUsage(u *fastjson.Value, sum string) error {
	if sum != "" {
		return s.out.usage(json.RawMessage(sum))
	}
	if u != nil && u.Type() == fastjson.TypeObject {
		return s.out.usage(json.RawMessage(u.MarshalTo(nil)))
	}
	return nil
}

// str is the string v holds as a view of the parsed chunk, valid until the
// next one; "" when v is no string.
func str(v *fastjson.Value) string {
	b, err := v.StringBytes()
	if err != nil {
		return ""
	}
	return b2s(b)
}

// isString says v is there and a string.
func isString(v *fastjson.Value) bool { return v != nil && v.Type() == fastjson.TypeString }

// fingerprint is chunk v's system_fingerprint, "" when it has none.
func fingerprint(v *fastjson.Value) string { return string(v.GetStringBytes("system_fingerprint")) }

// visit calls f for each field of object v, in order; a v that is no
// object has none.
func visit(v *fastjson.Value, f func(k []byte, v *fastjson.Value)) {
	if o, err := v.Object(); err == nil {
		o.Visit(f)
	}
}

// first keeps the first of a field that is there twice, as a search
// finds it.
func first(had, v *fastjson.Value) *fastjson.Value {
	if had != nil {
		return had
	}
	return v
}
