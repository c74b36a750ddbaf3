package detect

import (
	"strings"
	"unicode/utf8"
)

// synToolRequest is the tool_request format (docs/tool-calls.md, VCP style):
//
//	<<<[TOOL_REQUEST]>>>
//	tool_name:「始」get_weather「末」,
//	city:「始」Paris「末」,
//	days:「始」3「末」
//	<<<[END_TOOL_REQUEST]>>>
//
// Each entry is key:「始」value「末」, with an optional trailing comma; the
// colon may be full width (：). A value is raw text and may span lines;
// nothing is trimmed from it (its delimiters are explicit). A value that
// itself contains 「末」 is written 「始ESCAPE」…「末ESCAPE」. tool_name gives
// the tool (trimmed of white space); every other key is an argument.
var synToolRequest = syntax{
	format: ToolRequest,
	close:  "<<<[END_TOOL_REQUEST]>>>",
	fail:   kmp("<<<[END_TOOL_REQUEST]>>>"),
	start:  trStart,
	parse:  parseToolRequest,
	sniff:  sniffToolRequest,
}

const (
	trOpen        = "「始」"
	trClose       = "「末」"
	trOpenEscape  = "「始ESCAPE」"
	trCloseEscape = "「末ESCAPE」"
	trName        = "tool_name"
)

func parseToolRequest(body string) parsed {
	var pr parsed
	var args textArgs
	s := body
	for {
		s = strings.TrimLeft(s, " \t\r\n,")
		if s == "" {
			break
		}
		key, value, rest, err := trEntry(s)
		if err != nil {
			pr.err = err
			return pr
		}
		s = rest
		if key == trName {
			if pr.name != "" {
				pr.err = malformed("tool_name is given twice")
				return pr
			}
			if pr.name = strings.TrimSpace(value); pr.name == "" {
				pr.err = malformed("tool_name is empty")
				return pr
			}
			continue
		}
		if err := args.add(key, value); err != nil {
			pr.err = err
			return pr
		}
	}
	if pr.name == "" {
		pr.err = malformed("no tool_name:「始」…「末」 in the block")
		return pr
	}
	pr.calls = []Call{{Name: pr.name, Arguments: args.json()}}
	return pr
}

// maxKey bounds a key in trStart.
const maxKey = 64

// trStart wants the body to start like an entry, key:「始 (prose after the
// marker, "the <<<[TOOL_REQUEST]>>> marker", is not a block). Key bytes are
// letters, digits, '_', '-', '.' and non-ASCII; '<', '`' and '{' are not,
// so the bytes it holds never start anything the scanner looks for.
func trStart(s string) (res, at int) {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c < utf8.RuneSelf {
			if c != '_' && c != '-' && c != '.' &&
				!('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
				break
			}
		} else if strings.HasPrefix(s[i:], "：") || strings.HasPrefix(s[i:], "「") {
			break
		} else if len(s)-i < len("：") && (strings.HasPrefix("：", s[i:]) || strings.HasPrefix("「", s[i:])) {
			return startMore, 0
		}
		if i >= maxKey {
			return startNo, i
		}
	}
	if i == 0 {
		return startNo, 0
	}
	i = skipSpaces(s, i)
	switch {
	case i == len(s):
		return startMore, 0
	case s[i] == ':':
		i++
	case strings.HasPrefix(s[i:], "："):
		i += len("：")
	case strings.HasPrefix("：", s[i:]):
		return startMore, 0
	default:
		return startNo, i
	}
	i = skipSpaces(s, i)
	const open = "「始"
	switch {
	case strings.HasPrefix(s[i:], open):
		return startOK, 0
	case strings.HasPrefix(open, s[i:]):
		return startMore, 0
	}
	return startNo, i
}

// skipSpaces skips spaces and tabs from s[i].
func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// trEntry reads key:「始」value「末」 at the start of s.
func trEntry(s string) (key, value, rest string, err error) {
	i := strings.IndexAny(s, ":：\n「")
	if i < 0 || s[i] == '\n' || strings.HasPrefix(s[i:], "「") {
		return "", "", "", malformed("expected key:「始」value「末」, got %s", excerpt(s))
	}
	key = strings.TrimSpace(s[:i])
	if key == "" || strings.ContainsAny(key, " \t") {
		return "", "", "", malformed("expected key:「始」value「末」, got %s", excerpt(s))
	}
	_, n := utf8.DecodeRuneInString(s[i:])
	s = strings.TrimLeft(s[i+n:], " \t")
	closer := trClose
	switch {
	case strings.HasPrefix(s, trOpenEscape):
		s, closer = s[len(trOpenEscape):], trCloseEscape
	case strings.HasPrefix(s, trOpen):
		s = s[len(trOpen):]
	default:
		return "", "", "", malformed("the value of %q does not start with 「始」", key)
	}
	end := strings.Index(s, closer)
	if end < 0 {
		return "", "", "", malformed("the value of %q has no closing %s", key, closer)
	}
	return key, s[:end], s[end+len(closer):], nil
}

// sniffToolRequest finds a complete tool_name entry in an unfinished body.
func sniffToolRequest(body string) parsed {
	i := strings.Index(body, trName)
	if i < 0 {
		return parsed{}
	}
	_, value, _, err := trEntry(body[i:])
	if err != nil {
		return parsed{}
	}
	return parsed{name: strings.TrimSpace(value)}
}
