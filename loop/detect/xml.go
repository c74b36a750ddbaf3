package detect

import "strings"

// The xml format (docs/tool-calls.md): a wrapper holding one or more invokes,
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
// Models add attributes of their own (<invoke id="1" name="…">,
// <parameter name="…" type="string">): they are ignored, and the name
// attribute may come anywhere among them, its value quoted or not. A
// missing </invoke> before the next <invoke or the wrapper's close is
// tolerated.
var (
	synXMLToolUse       = xmlSyntax("</tool_use>")
	synXMLFunctionCalls = xmlSyntax("</function_calls>")
	synXMLMiniMax       = xmlSyntax("</minimax:tool_call>")
)

// xmlInvokeOpen opens a bare invoke: with its blank, so that "<invoke>"
// in prose and XML costs no block.
const xmlInvokeOpen = "<invoke "

// synXMLInvoke is an <invoke name="…">…</invoke> written without a
// wrapper, as models taught the MiniMax or Anthropic form drop it. It is
// never taught (prose and XML write <invoke> too): a call only for a tool
// the turn can run, under xml, auto or any other format.
var synXMLInvoke = syntax{
	format:   XML,
	taughtBy: []Format{},
	close:    "</invoke>",
	fail:     kmp("</invoke>"),
	start:    invokeStart,
	parse: func(body string) parsed {
		return parseXML(xmlInvokeOpen + body + "</invoke>")
	},
	sniff: func(body string) parsed { return sniffXML(xmlInvokeOpen + body) },
}

// invokeStart wants the rest of an <invoke …> tag with a name attribute
// (s starts past the blanks after "<invoke "): "the <invoke x> element"
// stays prose.
func invokeStart(s string) (res, at int) {
	// The tag is read to its '>' within the bound, and given up at the
	// byte past it, wherever the text was cut: what follows is scanned
	// as prose (a call may come after it).
	const bound = maxToolName + 32
	t := s[:min(len(s), bound+1)]
	gt := strings.IndexByte(t, '>')
	if lt := strings.IndexByte(t, '<'); lt >= 0 && (gt < 0 || lt < gt) {
		return startNo, lt
	}
	switch {
	case gt < 0 && len(s) > bound:
		return startNo, bound
	case gt < 0:
		return startMore, 0
	}
	if _, _, ok := nameAttr(" " + s[:gt+1]); !ok {
		return startNo, gt
	}
	return startOK, 0
}

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
		for s = trimBlankLeft(rest); s != "" && !strings.HasPrefix(s, "<invoke"); s = trimBlankLeft(s) {
			if r, ok := strings.CutPrefix(s, "</invoke>"); ok {
				s = r
				break
			}
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
	}
	if len(pr.calls) == 0 {
		pr.err = malformed(`no <invoke name="…"> in the block`)
	}
	return pr
}

// nameAttr reads the attributes after a tag name up to its '>' and returns
// the value of the name attribute and what follows the '>'. Other
// attributes are skipped; values may be quoted with " or ', or bare.
func nameAttr(s string) (value, rest string, ok bool) {
	if s == "" || !isBlank(s[0]) {
		return "", "", false
	}
	found := false
	for s = trimBlankLeft(s); s == "" || s[0] != '>'; s = trimBlankLeft(s) {
		j := 0
		for j < len(s) && !isBlank(s[j]) && strings.IndexByte("=<>\"'", s[j]) < 0 {
			j++
		}
		if j == 0 {
			return "", "", false // the end of the input, or a stray '=', '<' or quote
		}
		attr := s[:j]
		s = trimBlankLeft(s[j:])
		v := ""
		if r, ok := strings.CutPrefix(s, "="); ok {
			if v, s, ok = attrValue(trimBlankLeft(r)); !ok {
				return "", "", false
			}
		}
		if attr == "name" && !found {
			value, found = v, true
		}
	}
	if !found || strings.TrimSpace(value) == "" {
		return "", "", false
	}
	return value, s[1:], true
}

// attrValue reads an attribute value at the start of s: quoted, or bare up
// to white space or '>'.
func attrValue(s string) (value, rest string, ok bool) {
	if s == "" {
		return "", "", false
	}
	if q := s[0]; q == '"' || q == '\'' {
		end := strings.IndexByte(s[1:], q)
		if end < 0 {
			return "", "", false
		}
		return s[1 : 1+end], s[end+2:], true
	}
	j := 0
	for j < len(s) && !isBlank(s[j]) && s[j] != '>' {
		j++
	}
	return s[:j], s[j:], j > 0
}

func sniffXML(body string) parsed {
	i := strings.Index(body, "<invoke")
	if i < 0 {
		return parsed{}
	}
	name, _, _ := nameAttr(body[i+len("<invoke"):])
	return parsed{name: name}
}
