package detect

import (
	"encoding/json"
	"strings"
)

// The gemma4 dialect (docs/tool-calls.md), as Gemma 4 writes it with its
// special tokens: one call per block, its arguments in the template's own
// object notation (bare keys, strings between <|"|> tokens, other values
// as JSON would write them),
//
//	<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>
//
// and FunctionGemma's older form, whose strings sit between <escape>
// tokens,
//
//	<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>
//
// Quirks of real output, as vLLM's gemma4 and functiongemma parsers accept
// them (tests/tool_parsers/test_gemma4_*.py): the last call closed by
// <turn|>, the end-of-turn token, instead of <tool_call|>, or by nothing
// where the server stripped that stop token; a stray ':' before "call:";
// "call:" left out; keys written as strings (<|"|>3<|"|>:…); white space
// between the parts. Values: a <|"|> or <escape> string is a JSON string
// as written (FunctionGemma's <escape>42<escape> stays "42", which
// toolhost coerces by the tool's schema where vLLM guesses); a bare
// number, true, false or null is that JSON value; any other bare word is
// a string; objects and arrays nest.
const (
	gemmaCallOpen   = "<|tool_call>"
	gemmaCallClose  = "<tool_call|>"
	gemmaTurnEnd    = "<turn|>"
	gemmaQuote      = `<|"|>`
	fgemmaCallOpen  = "<start_function_call>"
	fgemmaCallClose = "<end_function_call>"
	fgemmaQuote     = "<escape>"
	// The thought channel, reasoning (rule 7): shown as <think> is,
	// never run.
	gemmaThoughtOpen  = "<|channel>"
	gemmaThoughtClose = "<channel|>"
)

var (
	// synGemma4 is Gemma 4's call.
	synGemma4 = syntax{
		format: Gemma4,
		close:  gemmaCallClose,
		fail:   kmp(gemmaCallClose),
		start:  gemmaStart,
		end:    endWhen(gemmaEndOK),
		parse:  func(body string) parsed { return parseGemma(body, gemmaQuote) },
		sniff:  sniffGemma,
	}
	// synFunctionGemma is FunctionGemma's call.
	synFunctionGemma = syntax{
		format: Gemma4,
		close:  fgemmaCallClose,
		fail:   kmp(fgemmaCallClose),
		start:  gemmaStart,
		parse:  func(body string) parsed { return parseGemma(body, fgemmaQuote) },
		sniff:  sniffGemma,
	}
)

// gemmaStart wants "call:NAME{", with an optional ':' before and "call:"
// optional, so that "<|tool_call> is Gemma's token" stays prose.
func gemmaStart(s string) (res, at int) {
	i := 0
	if s[0] == ':' {
		i = 1
	}
	switch r := prefixRes(s[i:], "call:"); r {
	case startMore:
		return startMore, 0
	case startOK:
		i += len("call:")
	}
	j, r := nameEnd(s[i:])
	switch {
	case r != startOK:
		return r, i + j
	case j == 0:
		return startNo, i
	}
	return tagAt(s, skipBlanks(s, i+j), "{")
}

// gemmaEndOK: a Gemma 4 call open at the end of the reply is complete when
// it ends with <turn|>, or with the '}' of complete arguments where the
// server stripped that stop token.
func gemmaEndOK(body string) bool {
	t := strings.TrimRight(body, " \t\r\n")
	if s, ok := strings.CutSuffix(t, gemmaTurnEnd); ok {
		return strings.HasSuffix(strings.TrimRight(s, " \t\r\n"), "}")
	}
	return strings.HasSuffix(t, "}") && parseGemma(body, gemmaQuote).err == nil
}

// parseGemma reads one or more "call:NAME{…}" from a body, q being the
// string delimiter of its form.
func parseGemma(body, q string) parsed {
	var pr parsed
	s := strings.TrimSpace(body)
	s = strings.TrimSpace(strings.TrimSuffix(s, gemmaTurnEnd))
	for s != "" {
		s = strings.TrimPrefix(s, ":")
		s = strings.TrimPrefix(s, "call:")
		j, _ := nameEnd(s)
		name := s[:j]
		if pr.name == "" {
			pr.name = name
		}
		if j == 0 {
			pr.err = malformed("expected call:NAME{…}, got %s", excerpt(s))
			return pr
		}
		g := gemmaArgs{s: s, i: skipBlanks(s, j), q: q}
		if g.i == len(s) || s[g.i] != '{' {
			pr.err = malformed("expected { after %s, got %s", name, excerpt(s[g.i:]))
			return pr
		}
		buf, err := g.value(nil, 0)
		if err != nil {
			pr.err = err
			return pr
		}
		pr.calls = append(pr.calls, Call{Name: name, Arguments: json.RawMessage(buf)})
		s = strings.TrimSpace(s[g.i:])
	}
	if len(pr.calls) == 0 {
		pr.err = malformed("no call:NAME{…} in the block")
	}
	return pr
}

func sniffGemma(body string) parsed {
	s := strings.TrimPrefix(strings.TrimSpace(body), ":")
	s = strings.TrimPrefix(s, "call:")
	j, _ := nameEnd(s)
	if j == 0 || skipBlanks(s, j) == len(s) || s[skipBlanks(s, j)] != '{' {
		return parsed{}
	}
	return parsed{name: s[:j]}
}

// gemmaArgs reads Gemma's object notation at s[i:] into JSON.
type gemmaArgs struct {
	s string
	i int
	q string // the string delimiter: <|"|> or <escape>
}

// maxGemmaDepth bounds nesting, so that a hostile body cannot exhaust the
// stack.
const maxGemmaDepth = 64

// value appends the value at g.i to buf.
func (g *gemmaArgs) value(buf []byte, depth int) ([]byte, error) {
	if depth > maxGemmaDepth {
		return nil, malformed("arguments nested deeper than %d", maxGemmaDepth)
	}
	g.i = skipBlanks(g.s, g.i)
	rest := g.s[g.i:]
	switch {
	case rest == "":
		return nil, malformed("the arguments end before a value")
	case strings.HasPrefix(rest, g.q):
		v, err := g.str()
		return appendJSONString(buf, v), err
	case rest[0] == '{':
		return g.object(buf, depth)
	case rest[0] == '[':
		return g.array(buf, depth)
	}
	// A bare word, up to the next separator: JSON when it is a number,
	// true, false or null; a string otherwise.
	k := strings.IndexAny(rest, ",}]")
	if k < 0 {
		return nil, malformed("the arguments end inside %s", excerpt(rest))
	}
	w := strings.TrimSpace(rest[:k])
	g.i += k
	if w == "" {
		return nil, malformed("a key without its value before %s", excerpt(rest))
	}
	if w == "true" || w == "false" || w == "null" || json.Valid([]byte(w)) && (w[0] == '"' || w[0] == '-' || '0' <= w[0] && w[0] <= '9') {
		return append(buf, w...), nil
	}
	return appendJSONString(buf, w), nil
}

// str reads a delimited string at g.i.
func (g *gemmaArgs) str() (string, error) {
	start := g.i + len(g.q)
	k := strings.Index(g.s[start:], g.q)
	if k < 0 {
		return "", malformed("a string opened by %s is not closed", g.q)
	}
	g.i = start + k + len(g.q)
	return g.s[start : start+k], nil
}

// object reads {key:value,…} at g.i.
func (g *gemmaArgs) object(buf []byte, depth int) ([]byte, error) {
	seen := map[string]bool{}
	return g.list(buf, '{', '}', func(buf []byte) ([]byte, error) {
		key, err := g.key()
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, malformed("parameter %q is given twice", key)
		}
		seen[key] = true
		return g.value(append(appendJSONString(buf, key), ':'), depth+1)
	})
}

// array reads [value,…] at g.i.
func (g *gemmaArgs) array(buf []byte, depth int) ([]byte, error) {
	return g.list(buf, '[', ']', func(buf []byte) ([]byte, error) { return g.value(buf, depth+1) })
}

// list reads the items of an object or array opening at g.i, each with
// item, separated by commas (a trailing one allowed) up to close.
func (g *gemmaArgs) list(buf []byte, open, close byte, item func([]byte) ([]byte, error)) ([]byte, error) {
	g.i++
	buf = append(buf, open)
	for n := 0; ; n++ {
		g.i = skipBlanks(g.s, g.i)
		if n > 0 && g.i < len(g.s) && g.s[g.i] == ',' {
			g.i = skipBlanks(g.s, g.i+1)
		} else if n > 0 && (g.i == len(g.s) || g.s[g.i] != close) {
			return nil, malformed("expected , or %c in the arguments, got %s", close, excerpt(g.s[g.i:]))
		}
		if g.i < len(g.s) && g.s[g.i] == close {
			g.i++
			return append(buf, close), nil
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = item(buf); err != nil {
			return nil, err
		}
	}
}

// key reads a bare or delimited key and the ':' after it.
func (g *gemmaArgs) key() (string, error) {
	var key string
	if strings.HasPrefix(g.s[g.i:], g.q) {
		k, err := g.str()
		if err != nil {
			return "", err
		}
		key = k
	} else {
		j := g.i
		for j < len(g.s) && (isNameByte(g.s[j]) || g.s[j] >= 0x80) {
			j++
		}
		key, g.i = g.s[g.i:j], j
	}
	g.i = skipBlanks(g.s, g.i)
	if key == "" || g.i == len(g.s) || g.s[g.i] != ':' {
		return "", malformed("expected key: in the arguments, got %s", excerpt(g.s[g.i:]))
	}
	g.i++
	return key, nil
}
