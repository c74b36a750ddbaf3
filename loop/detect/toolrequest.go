package detect

import (
	"strings"
	"unicode/utf8"
)

// synToolRequest is the tool_request format (SPEC §5, VCP style):
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
	bodyStart: func(c byte) bool {
		return c == '_' || c >= utf8.RuneSelf ||
			'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	},
	parse: parseToolRequest,
	sniff: sniffToolRequest,
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
