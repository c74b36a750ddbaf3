package detect

import (
	"encoding/json"
	"html"
	"strings"
)

// The kimi_k3 dialect (docs/tool-calls.md), Kimi K3's XTML: elements whose
// brackets are the special tokens <|open|>, <|sep|> and <|close|>. The
// calls of a reply sit in a tools section,
//
//	<|open|>tools<|sep|>
//	<|open|>call tool="get_weather" index="1"<|sep|>
//	<|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
//	<|open|>argument key="days" type="number"<|sep|>3<|close|>argument<|sep|>
//	<|close|>call<|sep|>
//	<|close|>tools<|sep|>
//
// as vLLM's kimi_k3 parser and SGLang's KimiK3 detector read it: a
// type="string" value is the raw text between the tokens; any other type
// is JSON (kept as raw text when it is not, as both parsers do); the
// arguments may instead be one <|open|>json type="object"<|sep|>{…}
// <|close|>json<|sep|> element, as some servers' XTML grammars force;
// attribute values are HTML-escaped (&quot;, &amp;); white space inside a
// token's element name ("<|open|> tools <|sep|>") is tolerated. The
// response channel's tokens around the text and the message's close (as
// K3 writes them once its prompt opened the response channel) are cut
// wherever they are, as vLLM's parser does; the message's close right
// after a section is part of it. A section
// left open at the end of the reply keeps its complete calls; a call cut
// off is a PARSE_ERROR (endAfterLast, endopen.go).
const (
	k3ToolsOpen  = "<|open|>tools<|sep|>"
	k3ToolsClose = "<|close|>tools<|sep|>"
	k3CallOpen   = "<|open|>call"
	k3CallClose  = "<|close|>call<|sep|>"
	k3ArgOpen    = "<|open|>argument"
	k3ArgClose   = "<|close|>argument<|sep|>"
	k3Sep        = "<|sep|>"
	k3JSONOpen   = "<|open|>json"
	k3JSONClose  = "<|close|>json<|sep|>"
	// The channel tokens around the reply's text and its section, which
	// vLLM's parser takes out of the content: control tokens cut wherever
	// they are read (strip.go). The message's close right after a
	// section is part of it (its trail).
	k3ResponseOpen  = "<|open|>response<|sep|>"
	k3ResponseClose = "<|close|>response<|sep|>"
	k3MessageClose  = "<|close|>message<|sep|>"
)

// synKimiK3 is the tools section, with the message's close after it.
var synKimiK3 = syntax{
	format: KimiK3,
	close:  k3ToolsClose,
	fail:   kmp(k3ToolsClose),
	trail:  k3MessageClose,
	end:    endAfterLast(k3CallClose, true),
	start:  func(s string) (int, int) { return tagAt(s, 0, k3CallOpen) },
	parse:  parseKimiK3,
	sniff:  sniffKimiK3,
}

// parseKimiK3 reads the calls of a tools section.
func parseKimiK3(body string) parsed {
	var pr parsed
	for s := trimBlankLeft(body); s != ""; s = trimBlankLeft(s) {
		attrs, rest, ok := k3Element(s, k3CallOpen)
		if !ok {
			pr.err = malformed("expected <|open|>call tool=\"NAME\"<|sep|>, got %s", excerpt(s))
			return pr
		}
		name := k3Attr(attrs, "tool")
		if pr.name == "" {
			pr.name = name
		}
		if name == "" {
			pr.err = malformed("a call without its tool attribute: %s", excerpt(attrs))
			return pr
		}
		end := strings.Index(rest, k3CallClose)
		if end < 0 {
			pr.err = malformed("the call of %s has no <|close|>call<|sep|>", name)
			return pr
		}
		args, err := k3Arguments(name, rest[:end])
		if err != nil {
			pr.err = err
			return pr
		}
		pr.calls = append(pr.calls, Call{Name: name, Arguments: args})
		s = rest[end+len(k3CallClose):]
	}
	if len(pr.calls) == 0 {
		pr.err = malformed("no <|open|>call in the tools section")
	}
	return pr
}

// k3Arguments reads the argument elements of a call's body into a JSON
// object, in the order written.
func k3Arguments(name, body string) (json.RawMessage, error) {
	if _, rest, ok := k3Element(trimBlankLeft(body), k3JSONOpen); ok {
		// The whole arguments as one JSON object, which some K3 servers'
		// structural tags force.
		v, tail, ok := strings.Cut(rest, k3JSONClose)
		if !ok || strings.TrimSpace(tail) != "" {
			return nil, malformed("in the call of %s: <|open|>json is not closed by <|close|>json<|sep|> at the call's end", name)
		}
		return jsonArguments(v)
	}
	var args textArgs
	for s := trimBlankLeft(body); s != ""; s = trimBlankLeft(s) {
		attrs, rest, ok := k3Element(s, k3ArgOpen)
		if !ok {
			return nil, malformed("in the call of %s: expected <|open|>argument key=\"K\"<|sep|>, got %s", name, excerpt(s))
		}
		end := strings.Index(rest, k3ArgClose)
		if end < 0 {
			return nil, malformed("in the call of %s: an argument without <|close|>argument<|sep|>", name)
		}
		key, typ := k3Attr(attrs, "key"), k3Attr(attrs, "type")
		if key == "" {
			return nil, malformed("in the call of %s: an argument without its key attribute", name)
		}
		if err := args.addValue(key, k3Value(typ, rest[:end])); err != nil {
			return nil, err
		}
		s = rest[end+len(k3ArgClose):]
	}
	return args.json(), nil
}

// k3Value is an argument's value as JSON: a string for type="string" (or
// no type), the JSON text itself for the other types, and the text as a
// string when that is not JSON.
func k3Value(typ, v string) json.RawMessage {
	if typ != "" && typ != "string" {
		if t := strings.TrimSpace(v); json.Valid([]byte(t)) {
			return json.RawMessage(t)
		}
	}
	return appendJSONString(nil, v)
}

// k3Element reads an element opening "<|open|>NAME attrs<|sep|>" at the
// start of s, open being "<|open|>NAME": its attribute text and what
// follows the <|sep|>. White space may stand inside the token pair.
func k3Element(s, open string) (attrs, rest string, ok bool) {
	name := strings.TrimPrefix(open, "<|open|>")
	s, ok = strings.CutPrefix(s, "<|open|>")
	if !ok {
		return "", "", false
	}
	if s, ok = strings.CutPrefix(trimBlankLeft(s), name); !ok {
		return "", "", false
	}
	attrs, rest, ok = strings.Cut(s, k3Sep)
	if !ok || attrs != "" && !isBlank(attrs[0]) {
		return "", "", false // "<|open|>callx" is another element
	}
	return attrs, rest, true
}

// k3Attr returns the value of attribute k in attrs (k="v"), HTML-unescaped.
func k3Attr(attrs, k string) string {
	for s := attrs; s != ""; {
		i := strings.Index(s, k+`="`)
		if i < 0 {
			return ""
		}
		if i > 0 && !isBlank(s[i-1]) { // "xkey=" is not "key="
			s = s[i+len(k):]
			continue
		}
		v := s[i+len(k)+2:]
		if j := strings.IndexByte(v, '"'); j >= 0 {
			return html.UnescapeString(v[:j])
		}
		return ""
	}
	return ""
}

func sniffKimiK3(body string) parsed {
	attrs, _, ok := k3Element(trimBlankLeft(body), k3CallOpen)
	if !ok {
		return parsed{}
	}
	return parsed{name: k3Attr(attrs, "tool")}
}
