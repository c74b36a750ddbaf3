package detect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolstream/toolstream/toolhost/clip"
)

// textArgs builds the Arguments of a call whose values are raw text (xml,
// tool_request, Qwen3-Coder, GLM): a JSON object of strings, in the
// order written.
type textArgs struct {
	buf  []byte
	keys []string
}

// add appends key: value. A key given twice is an error: which value was
// meant is not ours to guess.
func (a *textArgs) add(key, value string) error {
	return a.addValue(key, appendJSONString(nil, value))
}

// addValue appends key: value, value being JSON already (kimi_k3's and
// minimax_m3's typed and nested values).
func (a *textArgs) addValue(key string, value json.RawMessage) error {
	for _, k := range a.keys {
		if k == key {
			return malformed("parameter %q is given twice", key)
		}
	}
	a.keys = append(a.keys, key)
	if len(a.buf) == 0 {
		a.buf = append(a.buf, '{')
	} else {
		a.buf = append(a.buf, ',')
	}
	a.buf = appendJSONString(a.buf, key)
	a.buf = append(a.buf, ':')
	a.buf = append(a.buf, value...)
	return nil
}

// json returns the object.
func (a *textArgs) json() json.RawMessage {
	if len(a.buf) == 0 {
		return json.RawMessage("{}")
	}
	return append(a.buf, '}')
}

// appendJSONString appends s as a JSON string. Unlike encoding/json it does
// not escape <, > and & (values are often code); invalid UTF-8 becomes
// U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}

// trimNewlines removes one newline ("\n" or "\r\n") at the start and one at
// the end of a raw text value, the ones that put the value on its own lines:
//
//	<parameter name="code">
//	print(1)
//	</parameter>
//
// gives "print(1)". Nothing else is trimmed: spaces and further blank lines
// are the value's own.
func trimNewlines(s string) string {
	if strings.HasPrefix(s, "\r\n") {
		s = s[2:]
	} else if strings.HasPrefix(s, "\n") {
		s = s[1:]
	}
	if strings.HasSuffix(s, "\r\n") {
		s = s[:len(s)-2]
	} else if strings.HasSuffix(s, "\n") {
		s = s[:len(s)-1]
	}
	return s
}

// argsObject returns a call's arguments as a compact JSON object. They may
// be written as an object, or as a string holding one (OpenAI's own shape,
// which hermes models copy); absent, null or "" mean no arguments.
func argsObject(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, malformed("arguments: %v", err)
		}
		if strings.TrimSpace(s) == "" {
			return json.RawMessage("{}"), nil
		}
		fixed, err := lenientJSON(s)
		if err != nil {
			return nil, malformed("arguments string: %v", err)
		}
		raw = fixed
	}
	if raw[0] != '{' {
		return nil, malformed("arguments must be a JSON object, got %s", excerpt(string(raw)))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, malformed("arguments: %v", err)
	}
	return buf.Bytes(), nil
}

// excerpt shortens s for an error message the model reads.
func excerpt(s string) string { return fmt.Sprintf("%q", clip.Excerpt(s, 40)) }
