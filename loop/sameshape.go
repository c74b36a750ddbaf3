package loop

import (
	"strings"

	"github.com/valyala/fastjson"
)

// sameShape passes a plain turn's content chunk without parsing it when
// it is the last plain content chunk again with other text: its bytes
// are the same before and after one "content" string. Such a chunk is
// what a model streams for every token, and step would send it as it
// came. Parsing and stepping it were most of the proxy's own work per
// chunk (BenchmarkChunkPath: about 10,000 instructions, 6,500 of them
// fastjson's); matching it costs a comparison of its bytes.
//
// A chunk is a template when step will forward it untouched and no state
// of the turn moves with it: the envelope is the turn's (no id, object,
// created or model to fix), the role went out already, there is one
// choice whose delta holds "content" alone, no finish_reason, no usage
// object. Every string keyed "content" in it is then one step does not
// read in a plain turn, so a chunk that differs from it in that string
// alone is stepped the same way: sent as it came.
//
// Only a plain turn's chat Out, with no think split and no round span to
// note chunks for, takes this path; every other chunk is parsed.
type sameShape struct {
	// tmpl is the template chunk; at is where its content string starts
	// and end where it ends (after its closing quote). at == 0: none.
	tmpl    []byte
	at, end int
	// off says a chunk's envelope was not the turn's (an alias's model,
	// an upstream's ids that change): no chunk of the turn would be a
	// template, and looking for one is given up.
	off bool
}

// match reports whether data is the template with another content
// string.
func (m *sameShape) match(data string) bool {
	if m.at == 0 || len(data) < len(m.tmpl)-(m.end-m.at)+2 {
		return false
	}
	head, tail := m.tmpl[:m.at], m.tmpl[m.end:]
	if data[:len(head)] != string(head) || data[len(data)-len(tail):] != string(tail) {
		return false
	}
	return isJSONString(data[len(head) : len(data)-len(tail)])
}

// learn makes data, parsed as v and not yet stepped, the template if it
// is one (see sameShape); otherwise the template stays.
func (m *sameShape) learn(s *stream, v *fastjson.Value, data string) {
	if m.off || !s.started || !s.roleSent {
		return
	}
	if !sameEnvelope(s, v) {
		m.off = true
		return
	}
	if !plainContent(v) {
		return
	}
	at := strings.Index(data, `"content":"`)
	if at <= 0 || data[at-1] == '\\' {
		return
	}
	at += len(`"content":`)
	end := stringEnd(data, at)
	if end < 0 {
		return
	}
	m.tmpl = append(m.tmpl[:0], data...)
	m.at, m.end = at, end
}

// sameEnvelope reports whether v's id, object, created and model are the
// turn's: fixEnvelope would leave them.
func sameEnvelope(s *stream, v *fastjson.Value) bool {
	return string(v.GetStringBytes("id")) == s.id && string(v.GetStringBytes("object")) == chunkObject &&
		v.GetInt64("created") == s.created && string(v.GetStringBytes("model")) == s.model
}

// plainContent reports whether v, whose envelope is the turn's, is a
// chunk step forwards untouched in a plain turn without moving the
// turn's state: see sameShape.
func plainContent(v *fastjson.Value) bool {
	if u := v.Get("usage"); u != nil && u.Type() == fastjson.TypeObject {
		return false
	}
	choices := v.GetArray("choices")
	if len(choices) != 1 || len(choices[0].GetStringBytes("finish_reason")) > 0 {
		return false
	}
	d := choices[0].Get("delta")
	if d == nil {
		return false
	}
	delta, err := d.Object()
	return err == nil && delta.Len() == 1 && delta.Get("content") != nil
}

// stringEnd is the index just past the JSON string that starts at
// data[at] (a quote), or -1 when no well-formed one does.
func stringEnd(data string, at int) int {
	for i := at + 1; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			n := escapeLen(data[i:])
			if n == 0 {
				return -1
			}
			i += n - 1
		}
	}
	return -1
}

// isJSONString reports whether s is one JSON string, quotes included.
func isJSONString(s string) bool {
	return len(s) >= 2 && s[0] == '"' && stringEnd(s, 0) == len(s)
}

// escapeLen is the length of the escape s starts with (at its
// backslash), 0 when it is not one JSON has.
func escapeLen(s string) int {
	if len(s) < 2 {
		return 0
	}
	switch s[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(s) < 6 {
			return 0
		}
		for _, c := range []byte(s[2:6]) {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return 0
			}
		}
		return 6
	}
	return 0
}
