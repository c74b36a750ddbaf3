package detect

import (
	"encoding/json"
	"strings"
)

// The minimax_m3 dialect (docs/tool-calls.md), MiniMax M3's namespaced
// XML: every tag prefixed with the namespace token ]<]minimax[>[, one
// child element per argument named by the argument itself,
//
//	]<]minimax[>[<tool_call>
//	]<]minimax[>[<invoke name="get_weather">]<]minimax[>[<city>Paris]<]minimax[>[</city>]<]minimax[>[</invoke>
//	]<]minimax[>[</tool_call>
//
// as the chat template's to_xml macro writes arguments and vLLM's and
// SGLang's minimax_m3 parsers read them: an object's members are child
// elements, an array's values <item> elements, a leaf raw text (less one
// leading and one trailing newline, as xml's values). A member written
// twice is an array of its values (vLLM's duplicate_demo). Leaves stay
// JSON strings: toolhost coerces them by the tool's schema, into nested
// objects and arrays too ("42"→42). White space between the namespace
// token and its tag is dropped, as SGLang does. A block the reply ends in
// keeps its complete invokes; one cut off is a PARSE_ERROR.
const (
	mmNS         = "]<]minimax[>["
	mmOpen       = mmNS + "<tool_call>"
	mmClose      = mmNS + "</tool_call>"
	mmInvoke     = mmNS + "<invoke"
	mmInvokeEnd  = mmNS + "</invoke>"
	mmMaxNesting = 32
)

// synMiniMaxM3 is the tool_call block.
var synMiniMaxM3 = syntax{
	format: MiniMaxM3,
	close:  mmClose,
	fail:   kmp(mmClose),
	end:    endAfterLast(mmInvokeEnd, true),
	start:  mmStart,
	parse:  parseMiniMaxM3,
	sniff:  sniffMiniMaxM3,
}

// mmStart wants an invoke (or the block's close) after the opening.
func mmStart(s string) (res, at int) {
	if r := prefixRes(s, mmNS); r != startOK {
		return r, 0
	}
	return tagAt(s, skipBlanks(s, len(mmNS)), "<invoke", "</tool_call>")
}

// mmTight drops the white space models put between the namespace token
// and its tag.
func mmTight(s string) string {
	if !strings.Contains(s, mmNS+" ") && !strings.Contains(s, mmNS+"\n") && !strings.Contains(s, mmNS+"\t") && !strings.Contains(s, mmNS+"\r") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, mmNS)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+len(mmNS)])
		s = s[i+len(mmNS):]
		if t := trimBlankLeft(s); strings.HasPrefix(t, "<") {
			s = t
		}
	}
}

func parseMiniMaxM3(body string) parsed {
	var pr parsed
	for s := trimBlankLeft(mmTight(body)); s != ""; s = trimBlankLeft(s) {
		rest, ok := strings.CutPrefix(s, mmInvoke)
		if !ok {
			pr.err = malformed("expected %s<invoke name=\"…\">, got %s", mmNS, excerpt(s))
			return pr
		}
		name, rest, ok := nameAttr(rest)
		if pr.name == "" {
			pr.name = name
		}
		if !ok {
			pr.err = malformed("an invoke without a name: %s", excerpt(s))
			return pr
		}
		end := strings.Index(rest, mmInvokeEnd)
		if end < 0 {
			pr.err = malformed("the invoke of %s has no %s", name, mmInvokeEnd)
			return pr
		}
		args, err := mmMembers(rest[:end], 0, false)
		if err != nil {
			pr.err = malformed("in the call of %s: %v", name, err)
			return pr
		}
		pr.calls = append(pr.calls, Call{Name: name, Arguments: args})
		s = rest[end+len(mmInvokeEnd):]
	}
	if len(pr.calls) == 0 {
		pr.err = malformed("no %s<invoke> in the block", mmNS)
	}
	return pr
}

// mmElem is one child element: its tag and its value as JSON.
type mmElem struct {
	tag   string
	value json.RawMessage
}

// mmMembers reads the child elements of s as a JSON object, or as an
// array when every child is an <item> and items allows it.
func mmMembers(s string, depth int, items bool) (json.RawMessage, error) {
	if depth > mmMaxNesting {
		return nil, malformed("arguments nested more than %d deep", mmMaxNesting)
	}
	var elems []mmElem
	for s = trimBlankLeft(s); s != ""; s = trimBlankLeft(s) {
		e, rest, err := mmElement(s, depth)
		if err != nil {
			return nil, err
		}
		elems, s = append(elems, e), rest
	}
	allItems := items && len(elems) > 0
	for _, e := range elems {
		allItems = allItems && e.tag == "item"
	}
	if allItems {
		return mmArray(elems), nil
	}
	var args textArgs
	for i, e := range elems {
		var same []mmElem
		for j, f := range elems {
			if f.tag == e.tag {
				if j < i {
					same = nil // written already
					break
				}
				same = append(same, f)
			}
		}
		switch {
		case len(same) == 1:
			_ = args.addValue(e.tag, e.value)
		case len(same) > 1:
			_ = args.addValue(e.tag, mmArray(same))
		}
	}
	return args.json(), nil
}

// mmArray is the values of elems as a JSON array.
func mmArray(elems []mmElem) json.RawMessage {
	b := []byte{'['}
	for i, e := range elems {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e.value...)
	}
	return append(b, ']')
}

// mmElement reads the element s starts with: ]<]minimax[>[<tag>, its
// content up to the matching ]<]minimax[>[</tag>, and what follows.
func mmElement(s string, depth int) (e mmElem, rest string, err error) {
	r, ok := strings.CutPrefix(s, mmNS+"<")
	if !ok || strings.HasPrefix(r, "/") {
		return e, "", malformed("expected an argument's %s<NAME>, got %s", mmNS, excerpt(s))
	}
	gt := strings.IndexByte(r, '>')
	if gt <= 0 {
		return e, "", malformed("an unfinished tag %s", excerpt(s))
	}
	tag := r[:gt]
	if sp := strings.IndexAny(tag, " \t\r\n"); sp >= 0 { // attributes ignored
		tag = tag[:sp]
	}
	if strings.ContainsAny(tag, "<\"'=/") || tag == "" {
		return e, "", malformed("not an argument's tag: %s", excerpt(s))
	}
	content, rest, ok := mmContent(r[gt+1:], tag)
	if !ok {
		return e, "", malformed("<%s> has no %s</%s>", tag, mmNS, tag)
	}
	e.tag = tag
	if t := trimBlankLeft(content); strings.HasPrefix(t, mmNS+"<") && !strings.HasPrefix(t, mmNS+"</") {
		e.value, err = mmMembers(t, depth+1, true)
		return e, rest, err
	}
	e.value = appendJSONString(nil, trimNewlines(content))
	return e, rest, nil
}

// mmContent splits s, what follows <tag>, at the close matching it,
// counting the same tag opened inside.
func mmContent(s, tag string) (content, rest string, ok bool) {
	open, end := mmNS+"<"+tag, mmNS+"</"+tag+">"
	depth := 0
	for i := 0; ; {
		e := strings.Index(s[i:], end)
		if e < 0 {
			return "", "", false
		}
		o := strings.Index(s[i:], open)
		if o >= 0 && o < e && o+len(open) < len(s)-i && strings.IndexByte("> \t\r\n", s[i+o+len(open)]) >= 0 {
			depth++
			i += o + len(open)
			continue
		}
		if depth == 0 {
			return s[:i+e], s[i+e+len(end):], true
		}
		depth--
		i += e + len(end)
	}
}

func sniffMiniMaxM3(body string) parsed {
	s := mmTight(body)
	i := strings.Index(s, mmInvoke)
	if i < 0 {
		return parsed{}
	}
	name, _, _ := nameAttr(s[i+len(mmInvoke):])
	return parsed{name: name}
}
