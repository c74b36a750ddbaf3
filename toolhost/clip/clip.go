// Package clip shortens text that a client, the audit log or the model
// reads: a cut never falls inside a UTF-8 sequence, so what is shown is
// always the input's own runes, never half of one turned into U+FFFD or
// a \x escape.
//
// It imports only the standard library, so that proxy, loop, loop/detect,
// toolhost and toolhost/store, which import none of each other's, share
// one clip instead of each writing its own.
package clip

import "unicode/utf8"

// Ellipsis is what Excerpt appends to text it cut.
const Ellipsis = "…"

// Prefix returns the longest prefix of s that is at most max bytes long
// and does not end inside a rune. A rune is what utf8.DecodeRune reads,
// so an invalid byte is a rune of its own and may be kept or dropped
// whole; but a rune s ends in the middle of is dropped whole even if it
// would fit, because s is then usually a bounded read of a longer text
// (max+1 bytes of a body), and the rest of that rune is in what was not
// read. A max below zero is taken as zero.
func Prefix[T ~string | ~[]byte](s T, max int) T {
	if len(s) <= max {
		return s
	}
	if max <= 0 {
		return s[:0]
	}
	// Only a rune starting in the last utf8.UTFMax-1 bytes before max can
	// run past it, and only the nearest rune start can be that rune: a
	// valid rune's tail bytes are never rune starts.
	for i := max - 1; i >= 0 && i > max-utf8.UTFMax; i-- {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		tail := string(s[i:min(len(s), i+utf8.UTFMax)])
		if _, size := utf8.DecodeRuneInString(tail); i+size > max || !utf8.FullRuneInString(tail) {
			return s[:i]
		}
		break
	}
	return s[:max]
}

// Suffix returns the longest suffix of s that is at most n bytes long and
// does not begin inside a rune (a rune as Prefix reads one): the end of a
// text, shown where what went wrong is at its end. An n below zero is
// taken as zero.
func Suffix[T ~string | ~[]byte](s T, n int) T {
	if len(s) <= n {
		return s
	}
	start := len(s) - max(0, n)
	// As in Prefix: only the nearest rune start before start can begin a
	// rune that runs past it.
	for i := start - 1; i >= 0 && i > start-utf8.UTFMax; i-- {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		if _, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)])); i+size > start {
			return s[i+size:]
		}
		break
	}
	return s[start:]
}

// Excerpt is Prefix(s, max) as a string, followed by Ellipsis when s was
// cut: the form error messages and audit records show.
func Excerpt[T ~string | ~[]byte](s T, max int) string {
	p := Prefix(s, max)
	if len(p) == len(s) {
		return string(s)
	}
	return string(p) + Ellipsis
}
