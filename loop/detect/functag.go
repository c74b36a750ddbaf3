package detect

import "strings"

// The function tag of Llama 3.1's custom tools and of Functionary v3.1,
// with a JSON body, in its two spellings (llama.cpp's Hermes 2 Pro and
// Functionary parsers accept both; tests/test-chat.cpp feeds each):
//
//	<function=get_weather>{"city": "Paris"}</function>
//	<function name="get_weather">
//	{"city": "Paris"}
//	</function>
//
// The first shares its opening with the Qwen3-Coder element (qwen.go),
// which reads it when the body starts with '{'. Neither is a taught
// format: a call is taken only for a tool the turn can run (rule 6),
// under hermes, llama3_json, auto or any other format, and reported as
// hermes, whose JSON it is.

const functionName = "<function name="

// synFunctionName is <function name="NAME">{…}</function>.
var synFunctionName = syntax{
	format:   Hermes,
	taughtBy: []Format{}, // never taught: known tools only
	close:    qwenFunctionEnd,
	jsonBody: jsonAfterHead,
	fail:     kmp(qwenFunctionEnd),
	start:    functionNameStart,
	parse: func(body string) parsed {
		name, rest, ok := functionNameHead(body)
		if !ok {
			return parsed{err: malformed(`expected <function name="NAME">{…}, got %s`, excerpt(body))}
		}
		return parseFunctionJSON(name, rest)
	},
	sniff: func(body string) parsed {
		name, _, _ := functionNameHead(body)
		return parsed{name: name}
	},
}

// functionNameStart wants the name's value, '>' and '{': "the
// <function name=x> tag" stays prose.
func functionNameStart(s string) (res, at int) {
	i := strings.IndexAny(s[:min(len(s), maxToolName+2)], ">\n<{")
	switch {
	case i < 0 && len(s) >= maxToolName+2:
		return startNo, maxToolName + 2
	case i < 0:
		return startMore, 0
	case s[i] != '>':
		return startNo, i
	}
	if _, _, ok := functionNameHead(s); !ok {
		return startNo, i
	}
	j := skipBlanks(s, i+1)
	switch {
	case j == len(s):
		return startMore, 0
	case s[j] != '{':
		return startNo, j
	}
	return startOK, 0
}

// functionNameHead reads `"NAME">` (quoted with " or ', or bare) and
// returns the name and what follows the '>'.
func functionNameHead(s string) (name, rest string, ok bool) {
	v, r, ok := attrValue(s)
	if !ok || !isToolName(v) {
		return "", "", false
	}
	r = strings.TrimLeft(r, " \t")
	if !strings.HasPrefix(r, ">") {
		return "", "", false
	}
	return v, r[1:], true
}

// parseFunctionJSON reads a function tag's JSON body, the arguments object.
func parseFunctionJSON(name, body string) parsed {
	pr := parsed{name: name, format: Hermes}
	args, err := jsonArguments(strings.TrimSpace(body))
	if err != nil {
		pr.err = err
		return pr
	}
	pr.calls = []Call{{Name: name, Arguments: args}}
	return pr
}
