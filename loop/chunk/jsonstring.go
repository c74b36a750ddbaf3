// Package chunk reads and writes the pieces of chat-completion chunks
// that a turn handles without building a tree: JSON strings appended as
// encoding/json writes them ([AppendJSONString]) and values set from
// pre-encoded JSON ([RawValue]), the implicit reasoning of a reply split
// off its content ([ThinkSplit], [ThinkAnswer]), and usage objects summed
// over rounds or read from a whole answer ([SumUsage], [AnswerUsage]).
package chunk

import (
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

const hexDigits = "0123456789abcdef"

// plain8 reports whether each of the eight bytes of w is ASCII written as
// itself in a JSON string: no control character, quote or backslash, and
// no high bit. Each test is exact for the word as a whole ("Bit Twiddling
// Hacks": hasless, haszero).
func plain8(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	ctl := (w - 0x20*ones) &^ w // a byte below 0x20
	q := w ^ '"'*ones
	quote := (q - ones) &^ q // a byte that was '"'
	bs := w ^ '\\'*ones
	backslash := (bs - ones) &^ bs // a byte that was '\'
	return (ctl|quote|backslash|w)&highs == 0
}

// plainRun is the end of the run of plain ASCII bytes that starts at
// s[i]: eight at a time, then the last few one by one. It is a function
// of its own so that its loops keep all they need in registers.
func plainRun(s string, i int) int {
	for i+8 <= len(s) {
		w := s[i : i+8] // one bounds check, and one load of a word
		if !plain8(uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56) {
			break
		}
		i += 8
	}
	for i < len(s) && plain[s[i]] {
		i++
	}
	return i
}

// plain says which bytes are ASCII written as themselves in a JSON
// string, as plain8 does for eight.
var plain = func() (t [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// AppendJSONString appends s as a JSON string exactly as encoding/json
// writes it with HTML escaping off: quotes, backslashes and control
// characters escaped (\b \f \n \r \t by name), U+2028 and U+2029 escaped,
// invalid UTF-8 replaced by U+FFFD. FuzzAppendJSONString holds it to
// encoding/json. It is the one writer of JSON strings on every
// protocol's per-token path (chat chunks, Responses and Messages events).
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; ; {
		// Text is mostly plain ASCII: the runs of it need no look but
		// their end.
		if i = plainRun(s, i); i == len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// RawValue returns a fastjson value that marshals as the JSON text raw,
// verbatim. fastjson has no constructor for a pre-encoded string, but a
// number value is written out as its text, so one serves; the value is only
// ever marshalled, never read. raw must stay valid until then.
func RawValue(a *fastjson.Arena, raw string) *fastjson.Value {
	return a.NewNumberString(raw)
}
