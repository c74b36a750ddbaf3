package loop

import (
	"strings"

	"github.com/valyala/fastjson"
)

// sameShape passes a plain turn's content chunk without parsing it when
// it is the last plain content chunk again with other text: its bytes
// are the same before and after one "content" string. Such a chunk is
// what a model streams for every token. Parsing and stepping it were
// most of the proxy's own work per chunk (BenchmarkChunkPath: about
// 10,000 instructions, 6,500 of them fastjson's); matching it costs a
// comparison of its bytes.
//
// A chunk is a template when step sends it without moving the turn's
// state: the role went out already, there is one choice whose delta
// holds "content" alone, no finish_reason, no usage object. What step
// makes of such a chunk depends on its envelope (id, object, created,
// model, fixed to the turn's) and on nothing else in it: a plain turn
// never reads its content, and fastjson writes a string it did not read
// back as it came. A chunk that differs from the template in that string
// alone therefore goes out as the template went out, with its own string
// where the template's stood: the upstream's bytes when step sent them
// untouched, the template's re-encoding around it when step fixed the
// envelope (an alias's model, OpenAI's dated model name).
//
// Only a plain turn's chat Out, with no think split and no round span to
// note chunks for, takes this path; every other chunk is parsed.
type sameShape struct {
	// tmpl holds the template as it came, then as it went out when that
	// differs; the heads and tails are views of it, around the content
	// string. inHead == nil: no template.
	tmpl             []byte
	inHead, inTail   []byte
	outHead, outTail []byte
	edited           bool
}

// match reports whether data is the template with another content
// string, and returns that string, quotes included.
func (m *sameShape) match(data string) (string, bool) {
	head, tail := m.inHead, m.inTail
	if head == nil || len(data) < len(head)+len(tail)+2 ||
		data[:len(head)] != string(head) || data[len(data)-len(tail):] != string(tail) {
		return "", false
	}
	x := data[len(head) : len(data)-len(tail)]
	return x, isJSONString(x)
}

// send writes data, which matched with content string x, as step would.
func (m *sameShape) send(s *stream, data, x string) error {
	if !m.edited {
		return s.out.raw(s2b(data))
	}
	s.buf = append(append(append(s.buf[:0], m.outHead...), x...), m.outTail...)
	return s.out.raw(s.buf)
}

// candidate reports whether v, parsed and not yet stepped, would make a
// template once step has sent it (see sameShape).
func (m *sameShape) candidate(s *stream, v *fastjson.Value) bool {
	if !s.started || !s.roleSent {
		return false
	}
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

// learn makes data the template, now that step sent it (once, as sends
// counted from before says): as it came, or re-encoded in s.buf. The
// content string must be found in both, the same; otherwise the template
// stays.
func (m *sameShape) learn(s *stream, data string, before int) {
	if s.sends != before+1 {
		return
	}
	at, end := contentString(data)
	if at < 0 {
		return
	}
	oat, oend := at, end
	if s.sentEdited {
		oat, oend = contentString(b2s(s.buf))
		if oat < 0 || string(s.buf[oat:oend]) != data[at:end] {
			return
		}
	}
	m.edited = s.sentEdited
	m.tmpl = append(m.tmpl[:0], data...)
	if m.edited {
		m.tmpl = append(m.tmpl, s.buf...)
	}
	in, out := m.tmpl[:len(data)], m.tmpl[len(data):]
	if !m.edited {
		out = in
	}
	m.inHead, m.inTail = in[:at:at], in[end:]
	m.outHead, m.outTail = out[:oat:oat], out[oend:]
}

// contentString finds the first string keyed "content" in a chunk: where
// it starts (its opening quote) and ends (after its closing quote); -1
// when there is none, or no well-formed one. A bare quote cannot stand
// inside a JSON string, so "content": with neither quote escaped is a
// key.
func contentString(b string) (at, end int) {
	i := strings.Index(b, `"content":"`)
	if i <= 0 || b[i-1] == '\\' {
		return -1, -1
	}
	at = i + len(`"content":`)
	if end = stringEnd(b, at); end < 0 {
		return -1, -1
	}
	return at, end
}

// stringEnd is the index just past the JSON string that starts at
// b[at] (a quote), or -1 when no well-formed one does.
func stringEnd(b string, at int) int {
	for i := at + 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			n := escapeLen(b[i:])
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
