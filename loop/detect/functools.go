package detect

import "strings"

// FireFunction's call list (json, and under auto), as llama.cpp's
// FireFunction v2 parser and Dynamo's phi4 parser read it: the word
// functools, then a JSON list of calls or one call object,
//
//	functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]
//
// ending at the bracket that balances its first. FireFunction writes it
// first in its reply, so like llama3_json and pythonic it is looked for
// only where a line starts (after at most three spaces). The word is no
// marker byte ('<' or '['), so it is found at the '[' or '{' after it,
// while that is in the same window; a piece ending in a prefix of the
// word at the start of a line is held (at most 9 bytes) until the next
// piece shows what follows. (Held anywhere, "of" and "if" at the end of
// half the pieces of prose cost the fast path.) Under auto a list is
// taken only when every name in it is a tool the turn can run, as json's
// bare lists are (autojson.go); a list that is not a call stays text,
// byte for byte.

const functools = "functools"

// synFunctools is the list after the word.
var synFunctools = syntax{
	format: JSON,
	bal:    balJSON,
	start:  jsonStart,
	parse:  parseJSON,
	sniff:  sniffJSON,
}

// functoolsBefore reports whether the bracket w[i] follows the word, all
// of it in w[p:i] (not yet released), where a line starts. It runs at
// every '[' and '{' under json and auto: the test of the byte before is
// inlined, the rest is not.
func (d *Detector) functoolsBefore(w string, p, i int) bool {
	return i-p >= len(functools) && w[i-1] == 's' && d.functoolsWord(w, i-len(functools))
}

// functoolsWord reports whether w[j:] starts with the word, where a line
// starts.
func (d *Detector) functoolsWord(w string, j int) bool {
	return strings.HasPrefix(w[j:], functools) && d.leadAt(w, j) >= 0
}

// functoolsTail returns where a suffix of w[p:] that is a prefix of the
// word starts (the whole word included, whose bracket may come next), or
// -1; lead is the line state before w. It runs at the end of every window
// of prose under json and auto, so most are dismissed by their last two
// bytes, and the rest read the trailing run of lower-case letters once: a
// shorter suffix would follow a letter, not a line's start.
func functoolsTail(w string, p, lead int) int {
	n := len(w)
	if n == p {
		return -1
	}
	if c := w[n-1]; c != 'f' {
		prev := functoolsPrev[c]
		if n-1 == p || prev[0] == 0 || w[n-2] != prev[0] && w[n-2] != prev[1] {
			return -1
		}
	}
	i := n
	for i > p && n-i < len(functools) && 'a' <= w[i-1] && w[i-1] <= 'z' {
		i--
	}
	if !strings.HasPrefix(functools, w[i:]) || leadAfter(lead, w[:i]) < 0 {
		return -1
	}
	return i
}

// functoolsPrev holds, for each letter of the word after its first, the
// letters before it there ('o' follows 't' and 'o'); zero for any other
// byte.
var functoolsPrev [256][2]byte

func init() {
	for i := 1; i < len(functools); i++ {
		prev := &functoolsPrev[functools[i]]
		if prev[0] == 0 {
			prev[0] = functools[i-1]
		}
		prev[1] = functools[i-1]
	}
}

// openFunctools opens the list at the bracket w[i], the word before it.
func (d *Detector) openFunctools(w string, p, i int) int {
	j := i - len(functools)
	d.emit(w[p:j])
	syn := &synFunctools
	if !d.json {
		syn = &synFunctoolsAuto // known tools only (autojson.go)
	}
	d.openMarker(syn, functools, functools, 0, d.leadAt(w, j))
	return i
}
