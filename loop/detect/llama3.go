package detect

import "strings"

// The llama3_json dialect (docs/tool-calls.md), as Llama 3.1–3.3 write
// it at the start of a line, optionally after <|python_tag|>: one JSON
// object per call, several joined by ';',
//
//	{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "search", "parameters": {"q": "x"}}
//
// The body runs from the first '{' through the '}' that balances the last
// object of the ';'-joined run. "arguments" is read like "parameters", and
// llama.cpp's {"type": "function", "name": …, "parameters": …} too (its
// Llama 3.x regex allows the "type" key first); the other shapes readCalls
// knows are taken as well. Each object is repaired leniently.

const pythonTag = "<|python_tag|>"

// llama3Start looks at s from its '{': the first key must be "name", or
// "type" with the value "function". JSON data in prose ({"city": …}) and
// braces in text ({x}, {{template}}) are ruled out at the byte that shows
// it, never before a byte an earlier startMore has seen.
func llama3Start(s string) (res, at int) {
	i := skipBlanks(s, 1)
	key, j, res := quotedAt(s, i, maxKey)
	if res != startOK {
		return res, j
	}
	switch key {
	case "name":
		return startOK, 0
	case "type":
	default:
		return startNo, j - 1
	}
	if j = skipBlanks(s, j); j == len(s) {
		return startMore, 0
	}
	if s[j] != ':' {
		return startNo, j
	}
	j = skipBlanks(s, j+1)
	v, k, res := quotedAt(s, j, len("function")+1)
	switch {
	case res != startOK:
		return res, k
	case v != "function":
		return startNo, k - 1
	}
	return startOK, 0
}

// quotedAt reads a JSON string of at most max bytes at s[i]: its text and
// the index after its closing quote, or startMore / startNo (with the
// index of the byte that rules it out).
func quotedAt(s string, i, max int) (text string, end, res int) {
	if i == len(s) {
		return "", 0, startMore
	}
	if s[i] != '"' {
		return "", i, startNo
	}
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '"':
			return s[i+1 : j], j + 1, startOK
		case s[j] == '\\' || j-i > max:
			// No key a call starts with needs an escape.
			return "", j, startNo
		}
	}
	return "", 0, startMore
}

func parseLlama3(body string) parsed {
	s := strings.TrimSpace(body)
	if rest, ok := strings.CutPrefix(s, pythonTag); ok {
		s = strings.TrimSpace(rest)
	}
	objs, err := splitObjects(s)
	var pr parsed
	named := true // every object a bare {"name": …}: weak
	for i, obj := range objs {
		calls, shape, name, cerr := readCalls(obj)
		if pr.name == "" {
			pr.name = name
		}
		switch {
		case cerr != nil:
			return parsed{name: pr.name, err: cerr, notCall: i == 0 && !looksLikeJSONCall(obj, name)}
		case shape == shapeNone && i == 0:
			return parsed{} // JSON data, not a call: text
		case shape == shapeNone:
			return parsed{name: pr.name, err: malformed("object %d of the ';'-joined calls is not a call", i+1)}
		}
		named = named && shape == shapeNamed
		pr.calls = append(pr.calls, calls...)
	}
	if err != nil {
		return parsed{name: pr.name, err: err}
	}
	if len(pr.calls) == 0 {
		return parsed{err: malformed("no call in the block"), notCall: true}
	}
	pr.weak = named
	return pr
}

// splitObjects cuts s into top-level JSON objects joined by ';' and blank
// space (a stray ';' at the end is allowed). Braces inside JSON strings do
// not count. An object left open at the end is returned as is, for
// lenientJSON to close. err is set, with the objects before, when something
// else stands between them.
func splitObjects(s string) (objs []string, err error) {
	depth, start := 0, -1
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr:
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
		case c == '"' && depth > 0:
			inStr = true
		case c == '{' || c == '[' && depth > 0:
			if depth == 0 {
				start = i
			}
			depth++
		case (c == '}' || c == ']') && depth > 0:
			if depth--; depth == 0 {
				objs = append(objs, s[start:i+1])
			}
		case depth > 0, isBlank(c), c == ';':
		default:
			return objs, malformed("expected calls joined by ';', got %s", excerpt(s[i:]))
		}
	}
	if depth > 0 {
		objs = append(objs, s[start:])
	}
	return objs, nil
}

func sniffLlama3(body string) parsed {
	s := trimBlankLeft(body)
	s = trimBlankLeft(strings.TrimPrefix(s, pythonTag))
	name := sniffJSONName(s)
	return parsed{name: name, notCall: !looksLikeJSONCall(s, name)}
}
