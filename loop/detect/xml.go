package detect

import "strings"

// The xml format (SPEC §5): a wrapper holding one or more invokes,
//
//	<tool_use>
//	<invoke name="get_weather">
//	<parameter name="city">Paris</parameter>
//	<parameter name="days">3</parameter>
//	</invoke>
//	</tool_use>
//
// The wrapper may also be <function_calls> (Anthropic's legacy prompt
// format) or <minimax:tool_call> (MiniMax M2), each closed by its own tag.
// A value is raw text up to the first </parameter> (no entities are
// decoded), less one leading and one trailing newline (trimNewlines).
var (
	synXMLToolUse       = xmlSyntax("</tool_use>")
	synXMLFunctionCalls = xmlSyntax("</function_calls>")
	synXMLMiniMax       = xmlSyntax("</minimax:tool_call>")
)

func xmlSyntax(close string) syntax {
	return syntax{
		format: XML,
		close:  close,
		fail:   kmp(close),
		start:  firstByteIn("<"),
		parse:  parseXML,
		sniff:  sniffXML,
	}
}

func parseXML(body string) parsed {
	var pr parsed
	for s := trimBlankLeft(body); s != ""; s = trimBlankLeft(s) {
		if !strings.HasPrefix(s, "<invoke") {
			pr.err = malformed(`expected <invoke name="…">, got %s`, excerpt(s))
			return pr
		}
		name, rest, ok := nameAttr(s[len("<invoke"):])
		if !ok {
			pr.err = malformed(`expected <invoke name="…">, got %s`, excerpt(s))
			return pr
		}
		if pr.name == "" {
			pr.name = name
		}
		var args textArgs
		for s = trimBlankLeft(rest); !strings.HasPrefix(s, "</invoke>"); s = trimBlankLeft(s) {
			if !strings.HasPrefix(s, "<parameter") {
				pr.err = malformed(`in <invoke name=%q>: expected <parameter name="…"> or </invoke>, got %s`, name, excerpt(s))
				return pr
			}
			key, rest, ok := nameAttr(s[len("<parameter"):])
			if !ok {
				pr.err = malformed(`in <invoke name=%q>: expected <parameter name="…">, got %s`, name, excerpt(s))
				return pr
			}
			end := strings.Index(rest, "</parameter>")
			if end < 0 {
				pr.err = malformed(`in <invoke name=%q>: <parameter name=%q> has no </parameter>`, name, key)
				return pr
			}
			if err := args.add(key, trimNewlines(rest[:end])); err != nil {
				pr.err = err
				return pr
			}
			s = rest[end+len("</parameter>"):]
		}
		pr.calls = append(pr.calls, Call{Name: name, Arguments: args.json()})
		s = s[len("</invoke>"):]
	}
	if len(pr.calls) == 0 {
		pr.err = malformed(`no <invoke name="…"> in the block`)
	}
	return pr
}

// nameAttr reads ` name="value">` (or single quotes) after a tag name and
// returns the value and what follows the '>'.
func nameAttr(s string) (value, rest string, ok bool) {
	if s == "" || !isBlank(s[0]) {
		return "", "", false
	}
	s = trimBlankLeft(s)
	if !strings.HasPrefix(s, "name") {
		return "", "", false
	}
	s = trimBlankLeft(s[len("name"):])
	if !strings.HasPrefix(s, "=") {
		return "", "", false
	}
	s = trimBlankLeft(s[1:])
	if s == "" || (s[0] != '"' && s[0] != '\'') {
		return "", "", false
	}
	end := strings.IndexByte(s[1:], s[0])
	if end < 0 {
		return "", "", false
	}
	value = s[1 : 1+end]
	s = trimBlankLeft(s[end+2:])
	if !strings.HasPrefix(s, ">") || strings.TrimSpace(value) == "" {
		return "", "", false
	}
	return value, s[1:], true
}

func sniffXML(body string) parsed {
	i := strings.Index(body, "<invoke")
	if i < 0 {
		return parsed{}
	}
	name, _, _ := nameAttr(body[i+len("<invoke"):])
	return parsed{name: name}
}
