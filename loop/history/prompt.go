package history

import (
	"encoding/json"
	"fmt"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/chunk"
)

// PlacePrompt puts the prompt in the client's system message, or in one
// of its own before the others: built from the prompt's remembered JSON,
// not encoded again for every request. sys is a system message of
// toolstream's own, to go first; first is the client's first message,
// when changed. A system message whose content is not a string is merged
// by encoding/json: merged is that message, whose content first takes
// once encoded.
func PlacePrompt(fp *fastjson.Parser, a *fastjson.Arena, msgs []json.RawMessage, prompt, quoted string) (sys, first *fastjson.Value, merged *Message, err error) {
	if prompt == "" {
		return nil, nil, nil, nil
	}
	var m0 *fastjson.Value
	if len(msgs) > 0 {
		if m0, err = fp.ParseBytes(msgs[0]); err != nil {
			return nil, nil, nil, fmt.Errorf("re-reading the request: %w", err)
		}
	}
	switch {
	case m0 == nil || !isSystem(m0):
		sys = a.NewObject()
		sys.Set("role", a.NewString("system"))
		sys.Set("content", chunk.RawValue(a, quoted))
		return sys, nil, nil, nil
	case isString(m0.Get("content")):
		c := string(m0.GetStringBytes("content"))
		m0.Set("content", chunk.RawValue(a, joinQuoted(c, quoted)))
		return nil, m0, nil, nil
	default:
		return nil, m0, mergedSystem(m0, prompt), nil
	}
}

// joinQuoted is the JSON string of content + "\n\n" + the prompt whose JSON
// string is quoted, as encoding/json writes it: its escaping is the same
// character by character, so the two encodings join.
func joinQuoted(content, quoted string) string {
	c, _ := json.Marshal(content) // a string always encodes
	return string(c[:len(c)-1]) + `\n\n` + quoted[1:]
}

func isSystem(m *fastjson.Value) bool {
	r := rawString(m.Get("role"))
	return r == "system" || r == "developer"
}

// mergedSystem returns the client's system message with the tools section
// appended: to its text, or as one more text part when its content is an
// array of parts.
func mergedSystem(m *fastjson.Value, prompt string) *Message {
	role := rawString(m.Get("role"))
	c := m.Get("content")
	switch {
	case c != nil && c.Type() == fastjson.TypeString:
		return &Message{Role: role, Content: string(c.GetStringBytes()) + "\n\n" + prompt}
	case c != nil && c.Type() == fastjson.TypeArray:
		parts := []json.RawMessage{}
		for _, part := range c.GetArray() {
			parts = append(parts, json.RawMessage(part.MarshalTo(nil)))
		}
		tp, _ := json.Marshal(map[string]string{"type": "text", "text": prompt})
		return &Message{Role: role, Content: append(parts, tp)}
	}
	return &Message{Role: role, Content: prompt}
}

func isString(v *fastjson.Value) bool { return v != nil && v.Type() == fastjson.TypeString }
