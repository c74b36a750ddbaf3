package detect

import "strings"

// synHermes is the <tool_call> tag, shared by three dialects (teaching any of
// them makes every <tool_call> block a call; each Call's Format is the dialect
// its body is written in). The hermes format (docs/tool-calls.md): JSON, as
// Hermes, Qwen and most local chat templates write it,
//
//	<tool_call>
//	{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}
//	</tool_call>
//
// with the shapes readCalls accepts (arguments as a string, "parameters",
// a list of calls), repaired leniently; the Qwen3-Coder body (qwen.go),
//
//	<tool_call>
//	<function=get_weather>
//	<parameter=city>
//	Paris
//	</parameter>
//	</function>
//	</tool_call>
//
// and the GLM body (glm.go), a tool name first:
//
//	<tool_call>get_weather
//	<arg_key>city</arg_key>
//	<arg_value>Paris</arg_value>
//	</tool_call>
var synHermes = syntax{
	format:   Hermes,
	taughtBy: []Format{Hermes, Qwen3Coder, GLM, Auto},
	close:    "</tool_call>",
	jsonBody: jsonLead,
	fail:     kmp("</tool_call>"),
	start:    hermesStart,
	parse:    parseHermes,
	sniff:    sniffHermes,
}

// hermesStart wants JSON, a tag, or a GLM name line.
func hermesStart(s string) (res, at int) {
	switch s[0] {
	case '{', '[', '<':
		return startOK, 0
	}
	return glmStart(s)
}

func parseHermes(body string) parsed {
	s := strings.TrimSpace(body)
	if strings.HasPrefix(s, "<") {
		return parseQwen(s)
	}
	if s != "" && isNameByte(s[0]) {
		// A GLM name line is a tool name; words are a body no parser
		// reads ("get weather for Paris please"), which in the taught
		// format is a PARSE_ERROR.
		if name, _ := glmName(s); !isToolName(name) {
			return parsed{err: malformed(`expected {"name": …, "arguments": {…}}, got %s`, excerpt(s))}
		}
		return parseGLM(s)
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

func sniffHermes(body string) parsed {
	s := trimBlankLeft(body)
	switch {
	case strings.HasPrefix(s, qwenFunction):
		name, _, _ := tagValue(s[len(qwenFunction):])
		return parsed{name: name, format: Qwen3Coder}
	case s != "" && isNameByte(s[0]):
		if name, _ := glmName(s); isToolName(name) {
			return parsed{name: name, format: GLM}
		}
		return parsed{}
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
