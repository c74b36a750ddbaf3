package detect

import "strings"

// The mistral dialect (docs/tool-calls.md): a call opens with the
// [TOOL_CALLS] marker. The body is the text after the marker up to the end
// of its balanced JSON, in one of the forms mistral-common decodes
// (tokens/tokenizers/tools.py):
//
//	[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}, …]
//	[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}
//	[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}
//
// The JSON list is tokenizer v2–v7 (Mistral 7B v0.3, Mixtral 8x22B, Nemo,
// which adds an "id" to each call); a blank after the marker and a single
// object instead of a list are taken too. The NAME[ARGS] form is v11 and
// later (Mistral Small 3.1+, Magistral, Devstral, Ministral 3), one call per
// marker; a server that drops special tokens leaves NAME{…}, which vLLM's
// parser reads, and so do we. Arguments may be an object or a string
// holding one; the JSON is repaired leniently.
//
// Some templates and servers close the list with [/TOOL_CALLS]
// (LocalAI's Mistral template writes "[TOOL_CALLS] {…} [/TOOL_CALLS]";
// Dynamo's and MLX servers' parser tests feed it): after blank space it is
// part of the block (a trail, trail.go), never left in the text.

const (
	mistralClose  = "[/TOOL_CALLS]"
	mistralCallID = "[CALL_ID]"
	mistralArgs   = "[ARGS]"
)

// mistralStart looks at s from the first non-blank byte after the marker:
// '[' or '{' opens the JSON form; a name opens the other form when what
// follows it is [ARGS], [CALL_ID] or '{'. Prose that merely mentions the
// marker ("[TOOL_CALLS] is the token…") is ruled out at the word after the
// name.
func mistralStart(s string) (res, at int) {
	if s[0] == '[' || s[0] == '{' {
		// A call object or a list of them, its first key a call's
		// ("[TOOL_CALLS] [1]" is prose).
		return jsonStart(s)
	}
	if !isIdentByte(s[0]) {
		return startNo, 0
	}
	j := 1
	for j < len(s) && isMistralName(s[j]) {
		if j >= maxPyName {
			return startNo, j
		}
		j++
	}
	if j = skipBlanks(s, j); j == len(s) {
		return startMore, 0
	}
	if s[j] == '{' {
		return startOK, 0
	}
	// Both tokens start with '['; the longest match tells where s fails.
	k := 0
	for _, tok := range []string{mistralArgs, mistralCallID} {
		n := 0
		for n < len(tok) && j+n < len(s) && s[j+n] == tok[n] {
			n++
		}
		switch {
		case n == len(tok):
			return startOK, 0
		case j+n == len(s):
			return startMore, 0
		}
		k = max(k, n)
	}
	return startNo, j + k
}

// isMistralName: the bytes of a tool name in the NAME[ARGS] form (vLLM
// reads [a-zA-Z0-9_-]; '.' is taken too, for namespaced names).
func isMistralName(c byte) bool {
	return isIdentByte(c) || c == '-' || c == '.'
}

func parseMistral(body string) parsed {
	s := strings.TrimSpace(body)
	if s == "" {
		return parsed{err: malformed("nothing follows [TOOL_CALLS]")}
	}
	if s[0] == '[' || s[0] == '{' {
		calls, shape, name, err := readCalls(s)
		switch {
		case err != nil:
			return parsed{name: name, err: err}
		case shape == shapeNone:
			return parsed{err: malformed(`expected [{"name": …, "arguments": {…}}] after [TOOL_CALLS], got %s`, excerpt(s))}
		}
		// After the marker a {"name": …} without arguments is a call with
		// none: the marker says so (vLLM reads a missing "arguments" as {}).
		return parsed{calls: calls}
	}
	name, rest := mistralName(s)
	if name == "" {
		return parsed{err: malformed("expected a tool name or a JSON list after [TOOL_CALLS], got %s", excerpt(s))}
	}
	if r, ok := strings.CutPrefix(rest, mistralCallID); ok {
		// The id is the model's; calls get ours.
		end := strings.IndexAny(r, "[{")
		if end < 0 {
			return parsed{name: name, err: malformed("%s: expected [ARGS] after the call id", name)}
		}
		rest = trimBlankLeft(r[end:])
	}
	if r, ok := strings.CutPrefix(rest, mistralArgs); ok {
		rest = trimBlankLeft(r)
	}
	if rest == "" {
		return parsed{name: name, err: malformed("%s: the arguments are missing", name)}
	}
	if rest[0] != '{' && rest[0] != '"' {
		return parsed{name: name, err: malformed("%s: expected [ARGS]{…}, got %s", name, excerpt(rest))}
	}
	js, err := lenientJSON(rest)
	if err != nil {
		return parsed{name: name, err: malformed("%s: arguments: %v", name, err)}
	}
	args, err := argsObject(js)
	if err != nil {
		return parsed{name: name, err: err}
	}
	return parsed{calls: []Call{{Name: name, Arguments: args}}}
}

// mistralName reads the name of the NAME[ARGS] form and returns the rest
// from the next non-blank byte.
func mistralName(s string) (name, rest string) {
	j := 0
	for j < len(s) && isMistralName(s[j]) {
		j++
	}
	return s[:j], trimBlankLeft(s[j:])
}

// sniffMistral returns the tool name of an unfinished body, once it is
// whole (the name form: followed by '[', '{' or a blank).
func sniffMistral(body string) parsed {
	s := trimBlankLeft(body)
	if s == "" {
		return parsed{}
	}
	if s[0] == '[' || s[0] == '{' {
		return parsed{name: sniffJSONName(s)}
	}
	name, rest := mistralName(s)
	if rest == "" || rest[0] != '[' && rest[0] != '{' {
		return parsed{}
	}
	return parsed{name: name}
}
