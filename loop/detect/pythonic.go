package detect

import "strings"

// The pythonic dialect (docs/tool-calls.md), as Llama 3.2, Llama 4 and
// some fine-tunes (ToolACE, LFM2) write it at the start of a line: a Python
// list of calls with keyword arguments whose values are Python literals,
//
//	[get_weather(city="Paris", days=3), search(q='it\'s', tags=["a", "b"])]
//
// The body is the text from '[' to its balancing ']'. Llama 4 may wrap the
// list in <|python_start|>…<|python_end|> (vLLM's llama4_pythonic parser
// strips them); when the body holds them they are dropped here too.
//
// Beyond what vLLM and SGLang accept (they run Python's ast on the body):
// names may hold '-' and '.' (OpenAI tool names may hold '-'; a model
// writes the name it was given), true/false/null are read as JSON's, and
// blanks may follow '['. Positional arguments are an error: which parameter
// a value is for is not ours to guess.

const (
	pythonStart = "<|python_start|>"
	pythonEnd   = "<|python_end|>"
)

// maxPyName bounds a tool name in pythonicStart: OpenAI's limit is 64.
const maxPyName = 128

// pythonicStart looks at s from its '[': optional blanks, a name and '('
// right after it. A markdown link, a checkbox, a list of numbers or a
// bracketed note is ruled out at the first byte that cannot be a call.
func pythonicStart(s string) (res, at int) {
	i := skipBlanks(s, 1)
	if i == len(s) {
		return startMore, 0
	}
	if !isIdentStart(s[i]) {
		return startNo, i
	}
	j := i + 1
	for j < len(s) && (isIdentByte(s[j]) || s[j] == '-' || s[j] == '.') {
		if j-i >= maxPyName {
			return startNo, j
		}
		j++
	}
	switch {
	case j == len(s):
		return startMore, 0
	case s[j] == '(':
		return startOK, 0
	}
	return startNo, j
}

// parsePythonic reads a body: '[', calls separated by commas (a trailing
// comma allowed), ']'.
func parsePythonic(body string) parsed {
	p := pyReader{s: trimPythonTags(body)}
	var pr parsed
	// keyword tells a call with a slip from Python code or prose in
	// brackets: a body that never got as far as one name=value pair is
	// not a call (it stays text unless its name is a known tool).
	keyword := false
	fail := func(err error) parsed {
		pr.calls, pr.err, pr.notCall = nil, err, !keyword
		return pr
	}
	if !strings.HasPrefix(p.s, "[") {
		return fail(malformed("expected [name(arg=value, …)], got %s", excerpt(p.s)))
	}
	p.i = 1
	for {
		p.skipSpace()
		if p.peek() == ']' {
			p.i++
			break
		}
		name := p.ident()
		if name == "" {
			return fail(malformed("expected a tool name, got %s", p.rest()))
		}
		if pr.name == "" {
			pr.name = name
		}
		if p.peek() != '(' {
			return fail(malformed("expected '(' after %s, got %s", name, p.rest()))
		}
		p.i++
		args, ok, err := p.kwargs(name)
		keyword = keyword || ok
		if err != nil {
			return fail(err)
		}
		pr.calls = append(pr.calls, Call{Name: name, Arguments: args})
		p.skipSpace()
		switch p.peek() {
		case ',':
			p.i++
		case ']':
		default:
			return fail(malformed("expected ',' or ']' after the call to %s, got %s", name, p.rest()))
		}
	}
	if len(pr.calls) == 0 {
		return fail(malformed("the list holds no call"))
	}
	if p.skipSpace(); p.i < len(p.s) {
		return fail(malformed("unexpected text after ']': %s", p.rest()))
	}
	return pr
}

// kwargs reads name=value pairs up to ')', a trailing comma allowed, as a
// JSON object. ok reports whether a pair was read (or the call has none),
// which says the body is a call even if it is broken later.
func (p *pyReader) kwargs(tool string) (args []byte, ok bool, err error) {
	var keys []string
	args = []byte{'{'}
	for {
		p.skipSpace()
		if p.peek() == ')' {
			p.i++
			return append(args, '}'), true, nil
		}
		start := p.i
		key := p.ident()
		p.skipSpace()
		if key == "" || p.peek() != '=' || strings.HasPrefix(p.s[p.i:], "==") {
			p.i = start
			return nil, ok, malformed("in %s(…): expected name=value, got %s (positional arguments are not supported)", tool, p.rest())
		}
		p.i++
		for _, k := range keys {
			if k == key {
				return nil, true, malformed("in %s(…): argument %q is given twice", tool, key)
			}
		}
		keys = append(keys, key)
		ok = true
		if len(keys) > 1 {
			args = append(args, ',')
		}
		args = append(appendJSONString(args, key), ':')
		if args, err = p.value(args, 0); err != nil {
			return nil, true, malformed("in %s(…), argument %s: %v", tool, key, strings.TrimPrefix(err.Error(), ErrMalformed.Error()+": "))
		}
		p.skipSpace()
		switch p.peek() {
		case ',':
			p.i++
		case ')':
		default:
			return nil, true, malformed("in %s(…): expected ',' or ')' after %s, got %s", tool, key, p.rest())
		}
	}
}

// sniffPythonic returns the first tool name of an unfinished body, once the
// '(' after it shows it is whole.
func sniffPythonic(body string) parsed {
	p := pyReader{s: trimPythonTags(body)}
	if !strings.HasPrefix(p.s, "[") {
		return parsed{notCall: true}
	}
	p.i = 1
	p.skipSpace()
	name := p.ident()
	if name == "" || p.peek() != '(' {
		return parsed{notCall: true}
	}
	return parsed{name: name}
}

// trimPythonTags trims blank space and Llama 4's <|python_start|> and
// <|python_end|> around a body.
func trimPythonTags(body string) string {
	s := strings.TrimSpace(body)
	if rest, ok := strings.CutPrefix(s, pythonStart); ok {
		s = strings.TrimSpace(rest)
		if rest, ok := strings.CutSuffix(s, pythonEnd); ok {
			s = strings.TrimSpace(rest)
		}
	}
	return s
}
