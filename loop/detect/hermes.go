package detect

import "strings"

// synHermes is the hermes format (SPEC §5): JSON inside <tool_call>, as
// Hermes, Qwen and most local chat templates write it,
//
//	<tool_call>
//	{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}
//	</tool_call>
//
// with the shapes readCalls accepts (arguments as a string, "parameters",
// a list of calls), repaired leniently; or the Qwen3-Coder body, whose
// values are raw text losing one leading and one trailing newline:
//
//	<tool_call>
//	<function=get_weather>
//	<parameter=city>
//	Paris
//	</parameter>
//	</function>
//	</tool_call>
var synHermes = syntax{
	format: Hermes,
	close:  "</tool_call>",
	fail:   kmp("</tool_call>"),
	start:  firstByteIn("{[<"),
	parse:  parseHermes,
	sniff:  sniffHermes,
}

const qwenFunction = "<function="

func parseHermes(body string) parsed {
	s := strings.TrimSpace(body)
	if strings.HasPrefix(s, "<") {
		return parseQwen(s)
	}
	calls, shape, name, err := readCalls(s)
	switch {
	case err != nil:
		return parsed{name: name, err: err}
	case shape == shapeNone:
		return parsed{err: malformed(`expected {"name": …, "arguments": {…}}, got %s`, excerpt(s))}
	}
	return parsed{calls: calls}
}

// parseQwen reads one or more <function=…> elements.
func parseQwen(s string) parsed {
	var pr parsed
	for s = trimBlankLeft(s); s != ""; s = trimBlankLeft(s) {
		if !strings.HasPrefix(s, qwenFunction) {
			pr.err = malformed("expected <function=name>, got %s", excerpt(s))
			return pr
		}
		name, rest, ok := tagValue(s[len(qwenFunction):])
		if !ok {
			pr.err = malformed("unfinished <function=…> tag")
			return pr
		}
		if pr.name == "" {
			pr.name = name
		}
		var args textArgs
		for s = trimBlankLeft(rest); !strings.HasPrefix(s, "</function>"); s = trimBlankLeft(s) {
			if !strings.HasPrefix(s, "<parameter=") {
				pr.err = malformed("in <function=%s>: expected <parameter=name> or </function>, got %s", name, excerpt(s))
				return pr
			}
			key, rest, ok := tagValue(s[len("<parameter="):])
			if !ok {
				pr.err = malformed("in <function=%s>: unfinished <parameter=…> tag", name)
				return pr
			}
			end := strings.Index(rest, "</parameter>")
			if end < 0 {
				pr.err = malformed("in <function=%s>: <parameter=%s> has no </parameter>", name, key)
				return pr
			}
			if err := args.add(key, trimNewlines(rest[:end])); err != nil {
				pr.err = err
				return pr
			}
			s = rest[end+len("</parameter>"):]
		}
		pr.calls = append(pr.calls, Call{Name: name, Arguments: args.json()})
		s = s[len("</function>"):]
	}
	if len(pr.calls) == 0 {
		pr.err = malformed("no <function=…> in the block")
	}
	return pr
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

func sniffHermes(body string) parsed {
	s := trimBlankLeft(body)
	if strings.HasPrefix(s, qwenFunction) {
		name, _, _ := tagValue(s[len(qwenFunction):])
		return parsed{name: name}
	}
	return parsed{name: sniffJSONName(s)}
}

// firstByteIn returns a syntax.start that wants the body to start with one
// of the bytes in set.
func firstByteIn(set string) func(s string) (int, int) {
	return func(s string) (int, int) {
		if strings.IndexByte(set, s[0]) < 0 {
			return startNo, 0
		}
		return startOK, 0
	}
}

// trimBlankLeft trims ASCII white space at the start of s.
func trimBlankLeft(s string) string {
	return strings.TrimLeft(s, " \t\r\n")
}
