package detect_test

import "strings"

// jsonWrappers are the marker pairs around a JSON body that endsWhole
// checks: hermes and the wrappers around the same JSON.
var jsonWrappers = [][2]string{
	{"<tool_call>", "</tool_call>"},
	{"<function_call>", "</function_call>"},
	{"<tools>", "</tools>"},
	{"<tool>", "</tool>"},
	{"<json>", "</json>"},
	{"<response>", "</response>"},
}

// endsWhole reports whether every block of raws (cut from in at cutAt)
// that opens with one of jsonWrappers around a JSON body ends where that
// body's first closing marker outside a JSON string ends, or, when there
// is none, runs on past the input's end. On false it returns the block.
func endsWhole(in string, raws []string, cutAt []int) (string, bool) {
	for i, raw := range raws {
		// Where cutsOut cut it: the first occurrence may be an earlier
		// look-alike left as text (a fenced example of the same call).
		at := cutAt[i]
		from := at + len(raw)
		k := strings.IndexByte(raw, '<')
		if k < 0 || strings.Trim(raw[:k], fenceBytes) != "" {
			continue // not a marker block, or not at its start
		}
		for _, w := range jsonWrappers {
			if !strings.HasPrefix(raw[k:], w[0]) {
				continue
			}
			body := at + k + len(w[0])
			end := jsonClose(in[body:], w[1])
			// A fenced block's markup runs on to its closing fence.
			if end >= 0 && body+end > from {
				return raw, false
			}
		}
	}
	return "", true
}

// fenceBytes are those of a fence line before a fenced block's marker.
const fenceBytes = " \t\r\n`~abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

// jsonClose returns where the first close outside a JSON string ends in
// body, or -1: none, or the body is not JSON (its first non-blank byte is
// not '{' or '['). After the JSON value ends, a '{' opens another.
func jsonClose(body, close string) int {
	t := strings.TrimLeft(body, " \t\r\n")
	if t == "" || t[0] != '{' && t[0] != '[' {
		return -1
	}
	depth, str, esc := 0, false, false
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case esc:
			esc = false
		case str && c == '\\':
			esc = true
		case str:
			str = c != '"'
		case depth > 0 && c == '"':
			str = true
		case c == '{' || depth > 0 && c == '[' || i == len(body)-len(t):
			depth++
		case depth > 0 && (c == '}' || c == ']'):
			depth--
		case strings.HasPrefix(body[i:], close):
			return i + len(close)
		}
	}
	return -1
}
