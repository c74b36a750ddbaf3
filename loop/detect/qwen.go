package detect

import "strings"

// The qwen3_coder dialect (docs/tool-calls.md), as Qwen3-Coder and
// Qwen3.5 write it: <function=…> elements whose parameter values are raw
// text losing one leading and one trailing newline, inside the <tool_call>
// tag (hermes.go) or, as the model sometimes writes them, bare:
//
//	<function=get_weather>
//	<parameter=city>
//	Paris
//	</parameter>
//	</function>
//
// A bare element is a block of its own, closed by </function>; a
// </tool_call> right after it (the model dropped only the opening tag) is
// part of the block (trail.go). As in vLLM's qwen3coder parser, a parameter
// left unclosed ends at the next <parameter=, at </function> or at the end
// of the block, and a missing </function> at the end of the block is
// tolerated.

const (
	qwenFunction    = "<function="
	qwenFunctionEnd = "</function>"
	qwenParam       = "<parameter="
	qwenParamEnd    = "</parameter>"
)

// synQwenFunction is a bare <function=…> element.
var synQwenFunction = syntax{
	format:   Qwen3Coder,
	close:    qwenFunctionEnd,
	jsonBody: jsonAfterHead,
	fail:     kmp(qwenFunctionEnd),
	trail:    "</tool_call>",
	start:    qwenFunctionStart,
	parse: func(body string) parsed {
		if name, rest, ok := tagValue(body); ok && strings.HasPrefix(trimBlankLeft(rest), "{") {
			return parseFunctionJSON(name, rest)
		}
		pr := parseQwenFunction(body)
		pr.format = Qwen3Coder
		return pr
	},
	sniff: func(body string) parsed {
		name, _, _ := tagValue(body)
		return parsed{name: name}
	},
}

// qwenFunctionStart wants "NAME>" then <parameter= or </function>, so that
// "write <function=x> in the prompt" stays prose; or "NAME>" then '{', the
// JSON body of Llama 3.1's and Functionary's function tag (functag.go).
func qwenFunctionStart(s string) (res, at int) {
	i := strings.IndexAny(s[:min(len(s), maxToolName)], ">\n<")
	switch {
	case i < 0 && len(s) >= maxToolName:
		return startNo, maxToolName
	case i < 0:
		return startMore, 0
	case s[i] != '>' || strings.TrimSpace(s[:i]) == "":
		return startNo, i
	}
	if j := skipBlanks(s, i+1); j < len(s) && s[j] == '{' {
		return startOK, 0
	}
	return tagAt(s, skipBlanks(s, i+1), qwenParam, qwenFunctionEnd)
}

// parseQwen reads one or more <function=…> elements in a <tool_call> body.
func parseQwen(s string) parsed {
	pr := parsed{format: Qwen3Coder}
	for s = trimBlankLeft(s); s != ""; s = trimBlankLeft(s) {
		rest, ok := cutQwenOpen(s)
		if !ok {
			pr.err = malformed("expected <function=name>, got %s", excerpt(s))
			return pr
		}
		c, name, more, err := qwenElement(rest)
		if s = more; !pr.add(c, name, err) {
			return pr
		}
	}
	if len(pr.calls) == 0 {
		pr.err = malformed("no <function=…> in the block")
	}
	return pr
}

// parseQwenFunction reads a bare element's body (after "<function=", its
// </function> cut off).
func parseQwenFunction(body string) parsed {
	c, name, rest, err := qwenElement(body)
	if err == nil && trimBlankLeft(rest) != "" {
		err = malformed("in <function=%s>: expected <parameter=name> or </function>, got %s", name, excerpt(trimBlankLeft(rest)))
	}
	if err != nil {
		return parsed{name: name, err: err}
	}
	return parsed{calls: []Call{c}}
}

// qwenElement reads one element after its "<function=", and returns what
// follows it.
func qwenElement(s string) (c Call, name, rest string, err error) {
	name, s, ok := tagValue(s)
	if !ok {
		return Call{}, "", "", malformed("unfinished <function=…> tag")
	}
	var args textArgs
	for s = trimBlankLeft(s); s != "" && !strings.HasPrefix(s, qwenFunction); s = trimBlankLeft(s) {
		if r, ok := strings.CutPrefix(s, qwenFunctionEnd); ok {
			s = r
			break
		}
		r, ok := strings.CutPrefix(s, qwenParam)
		if !ok {
			return Call{}, name, "", malformed("in <function=%s>: expected <parameter=name> or </function>, got %s", name, excerpt(s))
		}
		key, r, ok := tagValue(r)
		if !ok {
			return Call{}, name, "", malformed("in <function=%s>: unfinished <parameter=…> tag", name)
		}
		value, next := qwenValue(r)
		if err := args.add(key, trimNewlines(value)); err != nil {
			return Call{}, name, "", err
		}
		s = next
	}
	return Call{Name: name, Arguments: args.json()}, name, s, nil
}

// qwenValue splits a parameter's value from what follows it: the value
// ends at </parameter> or, left unclosed, at the next <parameter=, at
// </function> or at the end of the body, whichever comes first.
func qwenValue(s string) (value, rest string) {
	end, skip := len(s), 0
	for _, t := range []string{qwenParamEnd, qwenParam, qwenFunctionEnd} {
		if i := strings.Index(s[:end], t); i >= 0 {
			end, skip = i, 0
			if t == qwenParamEnd {
				skip = len(t)
			}
		}
	}
	return s[:end], s[end+skip:]
}

// tagValue reads "value>" after "<function=" or "<parameter=": the value up
// to '>', which must come before the end of the line.
func tagValue(s string) (value, rest string, ok bool) {
	i := strings.IndexAny(s, ">\n")
	if i <= 0 || s[i] != '>' {
		return "", "", false
	}
	v := strings.TrimSpace(s[:i])
	return v, s[i+1:], v != ""
}
