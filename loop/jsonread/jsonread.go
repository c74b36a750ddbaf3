// Package jsonread reads request bodies: [Body] checks a whole body
// once, for every route (chat, Responses, Messages, pass-through), and
// splits it into its top-level members; a [Reader] then reads the members
// of the client protocols that map onto chat completions (Responses,
// Messages) one level at a time, every value kept as the client wrote it
// until its field is read, so a nested value passed on (a tool's
// parameters, a JSON schema, metadata) keeps its bytes. Each protocol
// phrases a wrong value its own way (its API's wording), through a
// Reader.
package jsonread

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/toolstream/toolstream/toolhost/clip"
)

// Object is a JSON object read one level deep.
type Object map[string]json.RawMessage

// Reader reads typed values; Invalid makes the error for a value of the
// wrong type: want is what was expected ("an object"), got what came
// ("a string"; "" when the type was right but the value unusable).
type Reader struct {
	Invalid func(param, want, got string) error
	// Count names what Count expects, in the protocol's words.
	Count string
}

// IsNull says a value is absent or JSON null: both mean "not given", and
// SDKs send null for unset optional fields.
func IsNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// Kind returns the JSON type of a value as a client would name it.
func Kind(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// Object reads raw as an object; param names it in the error.
func (r Reader) Object(raw json.RawMessage, param string) (Object, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, r.Invalid(param, "an object", Kind(raw))
	}
	o, ok := members(raw)
	if !ok {
		return nil, r.Invalid(param, "an object", "")
	}
	return o, nil
}

// members splits an object into its members as json.Unmarshal into an
// Object does — keys unquoted, the last of a repeated key kept, values
// as written — without its reflection, which cost more than all the
// rest of reading a small request did.
func members(raw []byte) (Object, bool) {
	if !json.Valid(raw) {
		return nil, false
	}
	o, _, _ := split(raw)
	return o, o != nil
}

// split splits a valid JSON object into its members, the last of a
// repeated key kept; dup is the first key it saw twice, when twice says
// there is one ("" is a key too). Values are views of raw, capped so that
// appending to one never writes into the next.
func split(raw []byte) (o Object, dup string, twice bool) {
	o = Object{}
	ok := walk(raw, func(key string, start, end int) bool {
		if _, seen := o[key]; seen && !twice {
			dup, twice = shortKey(key), true
		}
		o[key] = raw[start:end:end]
		return true
	})
	if !ok {
		return nil, "", false
	}
	return o, dup, twice
}

// Span is where the value of an object's top-level key lies in it:
// raw[start:end], the last one when the key repeats. ok is false when raw
// is not a JSON object or has no such key.
func Span(raw []byte, key string) (start, end int, ok bool) {
	if !json.Valid(raw) || raw[skipSpace(raw, 0)] != '{' {
		return 0, 0, false
	}
	// walk's own loop, without its callback and key strings: a round's
	// body is looked into twice, and each look cost four allocations.
	for i := skipSpace(raw, skipSpace(raw, 0)+1); raw[i] != '}'; {
		kend := stringEnd(raw, i)
		k := raw[i:kend]
		i = skipSpace(raw, skipSpace(raw, kend)+1) // past the colon
		e := valueEnd(raw, i)
		if keyIs(k, key) {
			start, end, ok = i, e, true
		}
		if i = skipSpace(raw, e); raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return start, end, ok
}

// keyIs reports whether the quoted key k says key; one without escapes
// is compared as it is.
func keyIs(k []byte, key string) bool {
	if body := k[1 : len(k)-1]; bytes.IndexByte(body, '\\') < 0 {
		return string(body) == key
	}
	var s string
	return json.Unmarshal(k, &s) == nil && s == key
}

// walk calls fn with each member of a valid JSON object: its key,
// unquoted, and where its value lies in raw, until fn returns false. Once
// json.Valid passed, the walk needs no checks of its own. It reports false
// for a key it cannot unquote (none that json.Valid passed).
func walk(raw []byte, fn func(key string, start, end int) bool) bool {
	i := skipSpace(raw, skipSpace(raw, 0)+1)
	for raw[i] != '}' {
		end := stringEnd(raw, i)
		key, ok := literal(raw[i:end])
		if !ok {
			if json.Unmarshal(raw[i:end], &key) != nil {
				return false
			}
		}
		i = skipSpace(raw, skipSpace(raw, end)+1) // past the colon
		end = valueEnd(raw, i)
		if !fn(key, i, end) {
			return true
		}
		if i = skipSpace(raw, end); raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return true
}

// shortKey keeps a key named in an error message short.
func shortKey(k string) string { return clip.Excerpt(k, 64) }

// skipSpace is the index of the first byte from i on that is not JSON
// white space.
func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index just past the string that starts at raw[i].
func stringEnd(raw []byte, i int) int {
	for i++; raw[i] != '"'; i++ {
		if raw[i] == '\\' {
			i++ // the escaped byte, which may be a quote
		}
	}
	return i + 1
}

// valueEnd is the index just past the value that starts at raw[i].
func valueEnd(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		return stringEnd(raw, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch raw[i] {
			case '"':
				i = stringEnd(raw, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(raw) && raw[i] != ',' && raw[i] != '}' && raw[i] != ']' &&
		raw[i] != ' ' && raw[i] != '\t' && raw[i] != '\n' && raw[i] != '\r' {
		i++
	}
	return i
}

// Array reads raw as an array.
func (r Reader) Array(raw json.RawMessage, param string) ([]json.RawMessage, error) {
	if len(raw) == 0 || raw[0] != '[' {
		return nil, r.Invalid(param, "an array", Kind(raw))
	}
	a, ok := Elements(raw)
	if !ok {
		return nil, r.Invalid(param, "an array", "")
	}
	return a, nil
}

// Elements splits an array into its elements as json.Unmarshal into a
// []json.RawMessage does, but as views of raw, capped as members' are:
// Unmarshal copied every element, a second copy of a body's messages. ok
// is false when raw is not a JSON array.
func Elements(raw []byte) (a []json.RawMessage, ok bool) {
	if len(raw) == 0 || raw[0] != '[' || !json.Valid(raw) {
		return nil, false
	}
	return ValidElements(raw), true
}

// ValidElements is Elements of raw known to be a valid JSON array, a
// value [Span] found in a body it checked: checked again, a long
// conversation's messages cost a second pass over them every round.
func ValidElements(raw []byte) []json.RawMessage {
	a := []json.RawMessage{}
	for i := skipSpace(raw, 1); raw[i] != ']'; {
		end := valueEnd(raw, i)
		a = append(a, raw[i:end:end])
		if i = skipSpace(raw, end); raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return a
}

// String reads a string; null or absent is "".
func (r Reader) String(raw json.RawMessage, param string) (string, error) {
	if IsNull(raw) {
		return "", nil
	}
	if s, ok := literal(raw); ok {
		return s, nil
	}
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", r.Invalid(param, "a string", Kind(raw))
	}
	return s, nil
}

// literal is the value of raw when raw is a JSON string whose bytes are
// its value: no escape, no control character, valid UTF-8 — what a
// model name or a line of text is. Decoding it is then a copy, without
// encoding/json's reflection; ok is false for any other raw, which
// encoding/json reads.
func literal(raw []byte) (s string, ok bool) {
	n := len(raw)
	if n < 2 || raw[0] != '"' || raw[n-1] != '"' {
		return "", false
	}
	body, high := raw[1:n-1], false
	for _, c := range body {
		if c < 0x20 || c == '"' || c == '\\' {
			return "", false
		}
		high = high || c >= utf8.RuneSelf
	}
	if high && !utf8.Valid(body) {
		return "", false // encoding/json puts U+FFFD in place of each bad byte
	}
	return string(body), true
}

// Bool reads a boolean; null or absent is nil.
func (r Reader) Bool(raw json.RawMessage, param string) (*bool, error) {
	if IsNull(raw) {
		return nil, nil
	}
	switch string(raw) {
	case "true":
		b := true
		return &b, nil
	case "false":
		b := false
		return &b, nil
	}
	return nil, r.Invalid(param, "a boolean", Kind(raw))
}

// Number checks that raw is a number and returns it as written, so the
// upstream reads the client's own digits; null or absent is nil.
func (r Reader) Number(raw json.RawMessage, param string) (json.RawMessage, error) {
	if IsNull(raw) {
		return nil, nil
	}
	var n json.Number
	if Kind(raw) != "a number" || json.Unmarshal(raw, &n) != nil {
		return nil, r.Invalid(param, "a number", Kind(raw))
	}
	return raw, nil
}

// PositiveInt reads a positive integer; null or absent is 0.
func (r Reader) PositiveInt(raw json.RawMessage, param string) (int, error) {
	if IsNull(raw) {
		return 0, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n < 1 || n > 1<<31-1 {
		return 0, r.Invalid(param, r.Count, "")
	}
	return int(n), nil
}

// Compact returns raw without insignificant white space. Strings keep
// their bytes: < > & are not escaped.
func Compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// Marshal encodes v as JSON without escaping < > & (the HTML escaping of
// json.Marshal would change the client's text on its way upstream).
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding the chat request: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
