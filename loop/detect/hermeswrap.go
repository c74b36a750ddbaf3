package detect

import "strings"

// The other wrappers llama.cpp's Hermes 2 Pro parser accepts around the
// same JSON call (common/chat.cpp; tests/test-chat.cpp feeds each), which
// Qwen2.5-Coder and Hermes fine-tunes write when they drift from
// <tool_call> (mlx-lm's tool tests record "<tools>…</tools>" and
// "```xml\n<function_call>…</function_call>\n```" from Qwen2.5-Coder):
//
//	<function_call>
//	{"name": "get_weather", "arguments": {"city": "Paris"}}
//	</function_call>
//
// and likewise <tool>, <tools>, <json> and <response>, each closed by its
// own tag, fenced or not. These tags are common in prose and XML, so they
// never count as taught: a block is a call only when it names a tool the
// turn can run (rule 6), and anything else, a malformed body naming no
// known tool included, stays text. The body must start like a call object
// ('{' or '[' and a call's first key), so "<response>ok</response>" is
// prose at once. <tool> also opens the generic XML-ish form
// (<tool><name>…</name>…), read by toolxml.go.

// The wrapper syntaxes, one per tag.
var (
	synWrapFunctionCall = hermesWrap("function_call")
	synWrapTool         = toolSyntax()
	synWrapTools        = hermesWrap("tools")
	synWrapJSON         = hermesWrap("json")
	synWrapResponse     = hermesWrap("response")
)

// hermesWrap returns the syntax of the wrapper <tag>…</tag>.
func hermesWrap(tag string) syntax {
	close := "</" + tag + ">"
	return syntax{
		format:   Hermes,
		taughtBy: []Format{}, // never taught: known tools only
		close:    close,
		jsonBody: jsonLead,
		fail:     kmp(close),
		start:    jsonStart,
		parse:    parseHermesWrap,
		sniff:    func(body string) parsed { return parsed{name: sniffJSONName(trimBlankLeft(body))} },
	}
}

// parseHermesWrap reads the JSON body of a wrapper.
func parseHermesWrap(body string) parsed {
	s := strings.TrimSpace(body)
	calls, shape, name, err := readCalls(s)
	switch {
	case err != nil:
		return parsed{name: name, err: err}
	case shape == shapeNone:
		return parsed{err: malformed(`expected {"name": …, "arguments": {…}}, got %s`, excerpt(s)), notCall: true}
	}
	return parsed{calls: calls}
}
