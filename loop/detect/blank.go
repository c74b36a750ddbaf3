package detect

import (
	"strings"
	"unsafe"
)

// Removing a block leaves no trace (docs/tool-calls.md): the line breaks
// before and after it meet where it stood, and
//
//	Sure.\n\n<tool_call>…</tool_call>\n\nLet me know.
//
// would show four in a row. Where a block was cut, the line breaks on both
// sides together keep at most two (one blank line); a run of at most two
// is left as written, so "Sure.\n<tool_call>…</tool_call>\nDone." keeps its
// paragraph break.
//
// Text is streamed and a block cannot be foreseen, so the line breaks
// before it have gone out already: the gate counts them (tailNL), and holds
// only the blank run right after a cut block, until the next non-blank
// byte or the end shows how long it is. From that run it lets go as many
// line breaks as the two allow, then the indent of the next line.

// isBlankByte reports whether c belongs to a blank run.
func isBlankByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n'
}

// trailingNL returns the line breaks in the blank run at the end of s, and
// whether s is blank through.
func trailingNL(s string) (n int, blank bool) {
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case '\n':
			n++
		case ' ', '\t', '\r':
		default:
			return n, false
		}
	}
	return n, true
}

// shown records visible text s leaving the detector, for tailNL.
func (d *Detector) shown(s string) {
	n, blank := trailingNL(s)
	if blank {
		d.tailNL += n
	} else {
		d.tailNL = n
	}
}

// gate passes visible text on, holding the blank run after a cut block.
// buf says s is in a buffer the detector reuses, so it must be copied.
func (d *Detector) gate(s string, buf bool) {
	if s == "" {
		return
	}
	if d.cutRun {
		k := 0
		for k < len(s) && isBlankByte(s[k]) {
			k++
		}
		d.nl = append(d.nl, s[:k]...)
		if k == len(s) {
			return
		}
		d.releaseRun()
		s = s[k:]
	}
	d.shown(s)
	if buf {
		d.emitCopy(s)
	} else {
		d.emitStr(s)
	}
}

// cut records that a block's markup was removed here.
func (d *Detector) cut() { d.cutRun = true }

// releaseRun lets the run held after a cut block go: its line breaks less
// those that would make more than two with the ones shown before it, then
// the indent after its last line break.
func (d *Detector) releaseRun() {
	if !d.cutRun {
		return
	}
	run := unsafe.String(unsafe.SliceData(d.nl), len(d.nl))
	n := strings.Count(run, "\n")
	keep := n
	if d.tailNL+n > 2 {
		keep = max(0, 2-d.tailNL)
	}
	if keep < n {
		unit := "\n"
		if strings.Contains(run, "\r\n") {
			unit = "\r\n"
		}
		run = strings.Repeat(unit, keep) + run[strings.LastIndexByte(run, '\n')+1:]
	}
	d.cutRun = false
	d.shown(run)
	d.emitCopy(run)
	d.nl = d.nl[:0]
}
