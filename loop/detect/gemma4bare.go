package detect

import "strings"

// Gemma 4's call without its <|tool_call> token, as vLLM's gemma4 parser
// reads it in its fallback tier (tests/tool_parsers/
// test_gemma4_regex_and_bare_calls.py): the model drops the token and
// writes the call as text,
//
//	call:get_weather{city:<|"|>Paris<|"|>}
//
// often right where its thought channel closed, or writes the fragmented
// token <call> before the name ("<call>get_weather{…}", from multimodal
// inputs). "call:" is no marker: prose may say it. So the bare form is read
// only where gemma4 is taught and under auto, only where a line starts
// (after at most three spaces: where vLLM's "(?:^|\s)call:" meets a
// reply's start or its lines, and right after the thought channel's close
// <channel|>, which starts a line: scan.go's thinkClosed), with the name right before '{', and only for tools the turn
// can run; anything else stays text, byte for byte. (vLLM also reads it
// after a space mid-line, where prose quotes it: "I will call:x{…}".)
// The call ends at the brace that balances its first, outside the <|"|>
// strings (balGemma); cut before it, a known tool's call is a PARSE_ERROR.
//
// Like functools[…], the words are found at the '{' after them, while that
// is in the same window; a piece ending in "call:NAME" (or a prefix of
// "call:") where a line starts is held until the next piece shows what
// follows.

const (
	gemmaBareCall     = "call:"
	gemmaCallFragment = "<call>"
)

// synGemmaBare is a bare call, or one after <call>: never taught, a call
// only for a known tool.
var synGemmaBare = knownOnly(syntax{
	format: Gemma4,
	bal:    balGemma,
	start:  gemmaStart,
	parse:  func(body string) parsed { return parseGemma(body, gemmaQuote) },
	sniff:  sniffGemma,
})

// gemmaBefore returns where "call:NAME" right before the '{' at w[i]
// starts, all of it in w[p:i] and where a line starts, or -1.
func (d *Detector) gemmaBefore(w string, p, i int) int {
	j := i
	for j > p && i-j < maxToolName && nameBytes[w[j-1]] {
		j--
	}
	k := j - len(gemmaBareCall)
	if j == i || k < p || w[k:j] != gemmaBareCall || d.leadAt(w, k) < 0 {
		return -1
	}
	return k
}

// openGemmaBare opens a bare call at w[k], "call:NAME" before the '{' at
// w[i]: the balancer reads from the name on.
func (d *Detector) openGemmaBare(w string, p, k int) int {
	d.emit(w[p:k])
	d.openMarker(&synGemmaBare, "", "", 0, d.leadAt(w, k))
	return k
}

// gemmaTail returns where a suffix of w[p:] that may still become a bare
// call's opening starts ("ca", "call:", "call:get_wea"), where a line
// starts, or -1; lead is the line state before w. It runs at the end of
// every window of prose where the bare form is read: a window that ends in
// no name byte, or in which no line starts, is dismissed first, the rest
// read the trailing run of name bytes once.
func gemmaTail(w string, p, lead int) int {
	n := len(w)
	if n == p || !nameBytes[w[n-1]] && w[n-1] != ':' {
		return -1
	}
	if leadAfter(lead, w[:p]) < 0 && strings.IndexByte(w[p:], '\n') < 0 {
		return -1
	}
	i := n
	for i > p && n-i < maxToolName && nameBytes[w[i-1]] {
		i--
	}
	switch {
	case i < n && strings.HasPrefix(gemmaBareCall, w[i:]):
		// "c" … "call": the word itself, cut.
	case i-p >= len(gemmaBareCall) && w[i-len(gemmaBareCall):i] == gemmaBareCall:
		i -= len(gemmaBareCall)
	default:
		return -1
	}
	if leadAfter(lead, w[:i]) < 0 {
		return -1
	}
	return i
}

// nameBytes are the bytes isNameByte reports, for the loops that run at
// the end of every window.
var nameBytes [256]bool

func init() {
	for c := range nameBytes {
		nameBytes[c] = isNameByte(byte(c))
	}
}

// gemmaByte counts c in a Gemma 4 body: strings run between <|"|> tokens
// (z.quote set inside one, z.qm bytes of the token matched), braces and
// brackets count outside them. It reports whether c balances the first.
func (z *balancer) gemmaByte(c byte) bool {
	// <|"|> has no border: a mismatch restarts at c.
	if z.qm > 0 && c != gemmaQuote[z.qm] {
		z.qm = 0
	}
	if c == gemmaQuote[z.qm] {
		if z.qm++; int(z.qm) == len(gemmaQuote) {
			z.qm = 0
			z.quote ^= '"'
		}
		return false
	}
	if z.quote != 0 {
		return false
	}
	switch c {
	case '{', '[':
		z.depth++
	case '}', ']':
		z.depth--
		return z.depth == 0
	}
	return false
}
