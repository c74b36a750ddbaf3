package textmode

import "strings"

// dsmlAt reports whether s[i:] continues a '<' into a DSML tag of DeepSeek
// V3.2 and V4 in any spelling of its bars the detector reads (｜, ‖, ｜｜,
// || or " | "): an optional '/', bars and spaces, at least one bar, then
// "DSML". The fullwidth spelling is a "<｜" token already; the others are
// not tokens at all, and "a <| b" in code stays as it is.
func dsmlAt(s string, i int) bool {
	if i < len(s) && s[i] == '/' {
		i++
	}
	bar := false
	for i < len(s) {
		switch {
		case strings.HasPrefix(s[i:], "｜"):
			i, bar = i+len("｜"), true
		case strings.HasPrefix(s[i:], "‖"):
			i, bar = i+len("‖"), true
		case s[i] == '|':
			i, bar = i+1, true
		case s[i] == ' ':
			i++
		default:
			_, ok := foldPrefix(s, i, "DSML")
			return bar && ok
		}
	}
	return false
}
