package detect

import "strings"

// Pieces of the start checks (syntax.start) of the dialects whose body
// opens with a tool name or a fixed tag.

// maxToolName bounds a tool name read by a start check: a longer run of
// name bytes is prose.
const maxToolName = 128

// isNameByte reports a byte of a tool name as models write them: ASCII
// letters, digits, '_', '-' and '.' (namespaced MCP tools).
func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isToolName reports whether s is one tool name: name bytes only, at most
// maxToolName of them.
func isToolName(s string) bool {
	j, _ := nameEnd(s)
	return s != "" && j == len(s) && j < maxToolName
}

// nameEnd returns the end of the run of name bytes at the start of s, and
// startMore when s ends inside it (startNo when the run is too long).
func nameEnd(s string) (end, res int) {
	j := 0
	for j < len(s) && j < maxToolName && isNameByte(s[j]) {
		j++
	}
	switch {
	case j == maxToolName:
		return j, startNo
	case j == len(s):
		return j, startMore
	}
	return j, startOK
}

// prefixRes tells whether s starts with one of tags (startOK), is a proper
// prefix of one (startMore), or neither (startNo).
func prefixRes(s string, tags ...string) int {
	res := startNo
	for _, t := range tags {
		if strings.HasPrefix(s, t) {
			return startOK
		}
		if len(s) < len(t) && strings.HasPrefix(t, s) {
			res = startMore
		}
	}
	return res
}

// tagAt is a start check's verdict on s[i:], which must start with one of
// tags; at is i when it does not.
func tagAt(s string, i int, tags ...string) (res, at int) {
	if i == len(s) {
		return startMore, 0
	}
	switch r := prefixRes(s[i:], tags...); r {
	case startNo:
		return startNo, i
	default:
		return r, 0
	}
}

// nameThenTag is a start check for a body that is a tool name, optional
// spaces, then one of tags: "get_weather<｜tool▁sep｜>".
func nameThenTag(s string, tags ...string) (res, at int) {
	j, r := nameEnd(s)
	switch {
	case r != startOK:
		return r, j
	case j == 0:
		return startNo, 0
	}
	return tagAt(s, skipSpaces(s, j), tags...)
}
