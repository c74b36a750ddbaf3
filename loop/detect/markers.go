package detect

import "strings"

// The opening markers looked for in prose, and the trie that matches them.

// marker is an opening tag that starts a block (or a think section).
type marker struct {
	open  string
	syn   *syntax // nil for <think>
	fence bool    // may open a block inside a fence (think may not)
	// only, when set, are the taught formats under which the marker is
	// looked for at all (Auto counts as every one).
	only []Format
	fail []int // kmp(open), set by init
	// thinkEnd closes a reasoning span other than <think>'s (syn nil).
	thinkEnd string
	// strip, when set, makes the marker a control token of that dialect
	// that is cut from the text wherever it is read (stripOn) and never
	// opens a call (strip.go). syn is nil.
	strip Format
	// whole, when set, is the marker this one is the tail of, which
	// starts one byte before it: minimax_m3's "]<]minimax[>[<tool_call>"
	// is looked for at its '<', since ']' is too common in prose to be
	// looked at (scan.go's specTable).
	whole *marker
}

// markers are every opening tag looked for in prose. All start with '<',
// '[' or ']' (minimax_m3's namespace token), so prose without them never
// reaches matchMarker. No marker is a prefix of another (init checks), so
// the first one s starts with is the only one.
var markers = []marker{
	{open: "<tool_call>", syn: &synHermes, fence: true},
	{open: "<tool_use>", syn: &synXMLToolUse, fence: true},
	{open: "<function_calls>", syn: &synXMLFunctionCalls, fence: true},
	{open: "<minimax:tool_call>", syn: &synXMLMiniMax, fence: true},
	{open: "<<<[TOOL_REQUEST]>>>", syn: &synToolRequest, fence: true},
	{open: qwenFunction, syn: &synQwenFunction, fence: true},
	{open: functionName, syn: &synFunctionName, fence: true},
	{open: xmlInvokeOpen, syn: &synXMLInvoke, fence: true},
	{open: dsCallsBegin, syn: &synDeepSeek, fence: true},
	{open: dsCallsBeginVariants[0], syn: &synDeepSeek, fence: true},
	{open: dsCallsBeginVariants[1], syn: &synDeepSeek, fence: true},
	{open: dsCallsBeginVariants[2], syn: &synDeepSeek, fence: true},
	{open: dsCallsBeginVariants[3], syn: &synDeepSeek, fence: true},
	{open: dsCallBegin, syn: &synDeepSeekCall, fence: true},
	{open: kimiSectionBegin, syn: &synKimi, fence: true},
	{open: kimiSectionBeginSingular, syn: &synKimi, fence: true},
	{open: kimiCallBegin, syn: &synKimiCall, fence: true},
	{open: k3ToolsOpen, syn: &synKimiK3, fence: true},
	{open: mmOpen, syn: &synMiniMaxM3, fence: true},
	{open: mmOpen[1:], syn: &synMiniMaxM3, fence: true}, // its tail (whole set by init)
	{open: "[TOOL_CALLS]", syn: &synMistral, fence: true},
	{open: trBracketOpen, syn: &synTRBracket, fence: true},
	{open: "<function_call>", syn: &synWrapFunctionCall, fence: true},
	{open: "<tool>", syn: &synWrapTool, fence: true},
	{open: "<tools>", syn: &synWrapTools, fence: true},
	{open: "<json>", syn: &synWrapJSON, fence: true},
	{open: "<response>", syn: &synWrapResponse, fence: true},
	{open: pythonTag, syn: &synLlama3, fence: true, only: []Format{Llama3JSON}},
	{open: hmStart, syn: &synHarmonyHeader},
	{open: hmChannel, syn: &synHarmonyHeader},
	{open: hmEnd, strip: Harmony},
	{open: hmReturn, strip: Harmony},
	{open: hmCall, strip: Harmony},
	{open: hmMessage, strip: Harmony},
	{open: hmConstrain, strip: Harmony},
	{open: k3ResponseOpen, strip: KimiK3},
	{open: k3ResponseClose, strip: KimiK3},
	{open: k3MessageClose, strip: KimiK3},
	{open: gemmaCallOpen, syn: &synGemma4, fence: true},
	{open: fgemmaCallOpen, syn: &synFunctionGemma, fence: true},
	{open: gemmaCallFragment, syn: &synGemmaBare, only: []Format{Gemma4}},
	{open: seedCallOpen, syn: &synSeed, fence: true},
	{open: lfmCallOpen, syn: &synLFM2, fence: true},
	{open: "<think>"},
	{open: gemmaThoughtOpen, thinkEnd: gemmaThoughtClose},
	{open: seedThinkOpen, thinkEnd: seedThinkClose},
}

// markerTable lists, by the byte after their first, the markers a '<' or
// '[' may open. Every marker is at least 3 bytes long.
type markerTable struct {
	by [256][]markerWord
	// pairs are the two bytes some marker has after its first, so that
	// most '<' and '[' in prose ("a<b", "<br>", "[1]", "<thinking>") are
	// dismissed with one test, without a call.
	pairs pairSet
}

// pairSet is a set of byte pairs: a bit for each pair's hash, so a pair
// not in it may test as in (then matchMarker says no), never the reverse.
type pairSet [4096 / 64]uint64

func pairHash(a, b byte) uint { return (uint(a)*61 + uint(b)) & 4095 }

func (t *pairSet) add(a, b byte) { h := pairHash(a, b); t[h>>6] |= 1 << (h & 63) }

// has reports whether the pair may be in the set.
func (t *pairSet) has(a, b byte) bool { h := pairHash(a, b); return t[h>>6]&(1<<(h&63)) != 0 }

// markerWord is a marker with its first 8 bytes as a word, so that a
// candidate is tried with one comparison. Prose is full of '<' and '['
// that almost open something ("<tool ", "<function>", "<thinking>"), and
// the variants made the lists long ("<t" may open five markers, "<f"
// four): comparing string prefixes one marker at a time cost more than
// the rest of the scan.
type markerWord struct {
	word, mask uint64 // the first min(8, len(open)) bytes, little-endian
	m          *marker
}

// markerSets are the markers looked for under each taught format ("" is
// native mode), built once.
var markerSets = map[Format]*markerTable{}

func init() {
	markers = append(markers, dsmlMarkers()...)
	for i := range markers {
		markers[i].fail = kmp(markers[i].open)
		for j := range markers {
			if j != i && strings.HasPrefix(markers[j].open, markers[i].open) {
				panic("detect: marker " + markers[i].open + " is a prefix of " + markers[j].open)
			}
			if markers[j].open[1:] == markers[i].open {
				markers[i].whole = &markers[j]
			}
		}
	}
	for _, f := range []Format{"", XML, ToolRequest, Hermes, JSON, Qwen3Coder, Llama3JSON, Pythonic, Mistral, DeepSeek, KimiK2, GLM, Harmony, DSML, Gemma4, KimiK3, MiniMaxM3, Auto} {
		markerSets[f] = markersFor(f)
	}
}

// markersFor returns the markers looked for when f is taught.
func markersFor(f Format) *markerTable {
	t := new(markerTable)
	for i := range markers {
		m := &markers[i]
		ok := m.only == nil || f == Auto
		for _, g := range m.only {
			ok = ok || g == f
		}
		if ok {
			w, mask := word8(m.open)
			t.by[m.open[1]] = append(t.by[m.open[1]], markerWord{word: w, mask: mask, m: m})
			t.pairs.add(m.open[1], m.open[2])
		}
	}
	return t
}

// word8 returns the first 8 bytes of s as a little-endian word (zero past
// its end) and the mask of the bytes s has.
func word8(s string) (w, mask uint64) {
	if len(s) >= 8 {
		_ = s[7] // one load: the compiler merges the byte loads
		return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56, ^uint64(0)
	}
	for i := len(s) - 1; i >= 0; i-- {
		w = w<<8 | uint64(s[i])
		mask = mask<<8 | 0xff
	}
	return w, mask
}

// matchMarker looks at s, which starts with '<', '[' or ']'. It returns the
// marker s starts with, or more=true when s is shorter than a marker it is
// a prefix of (the caller holds s back until more text arrives), or
// neither: the byte opens no marker.
func (d *Detector) matchMarker(s string, inFence bool) (m *marker, more bool) {
	if len(s) < 2 {
		return nil, true
	}
	cands := d.markers.by[s[1]]
	if len(cands) == 0 {
		return nil, false
	}
	x, have := word8(s)
	for i := range cands {
		c := &cands[i]
		if (x^c.word)&c.mask&have != 0 || inFence && !c.m.fence {
			continue
		}
		// s and the marker agree on their first min(8, len) bytes.
		open := c.m.open
		n := min(len(s), len(open))
		if n > 8 && s[8:n] != open[8:n] {
			continue
		}
		if n == len(open) {
			return c.m, false
		}
		more = true
	}
	return nil, more
}

// Openings returns the opening markers of format f's own blocks, in every
// spelling the detector reads: what may start a call of a model taught f.
func Openings(f Format) []string {
	var out []string
	for i := range markers {
		if m := &markers[i]; m.syn != nil && m.syn.format == f && m.whole == nil {
			out = append(out, m.open)
		}
	}
	return out
}
