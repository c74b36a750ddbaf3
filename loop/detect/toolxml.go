package detect

import "strings"

// The <tool> wrapper (hermeswrap.go) holds either the Hermes JSON call or a
// generic XML-ish form that prompt-taught agents and small fine-tunes write,
// a tool name element then the arguments as one element per parameter:
//
//	<tool>
//	<name>get_weather</name>
//	<arguments>
//	<city>Paris</city>
//	<days>3</days>
//	</arguments>
//	</tool>
//
// Calls of that form are xml calls: values are raw text less one leading and
// one trailing newline, coerced later by the tool's schema like xml's.
// <parameters> is taken for <arguments>, and <tool_name> for <name>; the
// arguments element may also hold one JSON object.

func toolSyntax() syntax {
	syn := hermesWrap("tool")
	syn.start, syn.parse, syn.sniff = toolStart, parseTool, sniffTool
	return syn
}

// toolStart wants a JSON call or a <name> element.
func toolStart(s string) (res, at int) {
	if s[0] == '<' {
		return tagAt(s, 0, "<name>", "<tool_name>")
	}
	return jsonStart(s)
}

func parseTool(body string) parsed {
	s := strings.TrimSpace(body)
	if !strings.HasPrefix(s, "<") {
		return parseHermesWrap(s)
	}
	pr := parsed{format: XML}
	name, rest, ok := element(s, "name", "tool_name")
	if !ok || !isToolName(strings.TrimSpace(name)) {
		pr.err = malformed("expected <name>NAME</name>, got %s", excerpt(s))
		return pr
	}
	pr.name = strings.TrimSpace(name)
	rest = strings.TrimSpace(rest)
	if rest == "" {
		pr.calls = []Call{{Name: pr.name, Arguments: []byte("{}")}}
		return pr
	}
	inner, tail, ok := element(rest, "arguments", "parameters")
	if !ok || strings.TrimSpace(tail) != "" {
		pr.err = malformed("in <tool> %s: expected <arguments>…</arguments>, got %s", pr.name, excerpt(rest))
		return pr
	}
	if t := strings.TrimSpace(inner); strings.HasPrefix(t, "{") {
		args, err := jsonArguments(t)
		if err != nil {
			pr.err = err
			return pr
		}
		pr.calls = []Call{{Name: pr.name, Arguments: args}}
		return pr
	}
	var args textArgs
	for p := trimBlankLeft(inner); p != ""; p = trimBlankLeft(p) {
		if len(p) < 3 || p[0] != '<' {
			pr.err = malformed("in <tool> %s: expected <PARAMETER>…</PARAMETER>, got %s", pr.name, excerpt(p))
			return pr
		}
		gt := strings.IndexByte(p, '>')
		if gt < 0 || !isToolName(p[1:gt]) {
			pr.err = malformed("in <tool> %s: expected <PARAMETER>…</PARAMETER>, got %s", pr.name, excerpt(p))
			return pr
		}
		key := p[1:gt]
		v, rest, ok := element(p, key)
		if !ok {
			pr.err = malformed("in <tool> %s: <%s> has no </%s>", pr.name, key, key)
			return pr
		}
		if err := args.add(key, trimNewlines(v)); err != nil {
			pr.err = err
			return pr
		}
		p = rest
	}
	pr.calls = []Call{{Name: pr.name, Arguments: args.json()}}
	return pr
}

// element reads <tag>value</tag> at the start of s, for the first of tags
// s starts with, and returns the value and what follows the close.
func element(s string, tags ...string) (value, rest string, ok bool) {
	for _, t := range tags {
		if r, found := strings.CutPrefix(s, "<"+t+">"); found {
			end := strings.Index(r, "</"+t+">")
			if end < 0 {
				return "", "", false
			}
			return r[:end], r[end+len(t)+3:], true
		}
	}
	return "", "", false
}

func sniffTool(body string) parsed {
	s := trimBlankLeft(body)
	if !strings.HasPrefix(s, "<") {
		return parsed{name: sniffJSONName(s)}
	}
	name, _, _ := element(s, "name", "tool_name")
	return parsed{name: strings.TrimSpace(name), format: XML}
}
