package detect

import "strings"

// The bracket form of tool_request that some Gemma fine-tunes write, and
// llxprt-code's text parser reads: one call per block, a tool name then its
// JSON arguments,
//
//	[TOOL_REQUEST]
//	list_directory {"path": "/home"}
//	[TOOL_REQUEST_END]
//
// Taken like tool_request's own blocks: under tool_request a block is a
// call whatever it names; elsewhere (auto included) only for a tool the
// turn can run. The arguments are repaired leniently.

const (
	trBracketOpen  = "[TOOL_REQUEST]"
	trBracketClose = "[TOOL_REQUEST_END]"
)

var synTRBracket = syntax{
	format:   ToolRequest,
	close:    trBracketClose,
	jsonBody: jsonArgs,
	fail:     kmp(trBracketClose),
	start:    trBracketStart,
	parse:    parseTRBracket,
	sniff: func(body string) parsed {
		name, _ := trBracketName(body)
		return parsed{name: name}
	},
}

// trBracketStart wants a tool name, blank space, then '{': "the
// [TOOL_REQUEST] marker" stays prose.
func trBracketStart(s string) (res, at int) {
	j, r := nameEnd(s)
	switch {
	case r != startOK:
		return r, j
	case j == 0:
		return startNo, 0
	}
	return tagAt(s, skipBlanks(s, j), "{")
}

// trBracketName reads the tool name at the start of a body and returns the
// rest.
func trBracketName(body string) (name, rest string) {
	s := trimBlankLeft(body)
	j, _ := nameEnd(s)
	return s[:j], s[j:]
}

func parseTRBracket(body string) parsed {
	name, rest := trBracketName(body)
	if !isToolName(name) {
		return parsed{err: malformed("expected NAME {…} after [TOOL_REQUEST], got %s", excerpt(strings.TrimSpace(body)))}
	}
	if r := trimBlankLeft(rest); r == "" || r[0] != '{' {
		return parsed{name: name, err: malformed("%s: expected {…} after the name, got %s", name, excerpt(r))}
	}
	args, err := jsonArguments(rest)
	if err != nil {
		return parsed{name: name, err: err}
	}
	return parsed{calls: []Call{{Name: name, Arguments: args}}}
}
