package detect

import (
	"unicode/utf8"
	"unsafe"
)

// The visible text of one Feed or End: segments appended through the
// blank-run gate (blank.go), the first kept without a copy.

// emit appends visible text through the blank-run gate (blank.go).
func (d *Detector) emit(s string) { d.gate(s, false) }

// emitBytes appends visible text from a buffer the detector reuses, through
// the blank-run gate, which copies what it keeps.
func (d *Detector) emitBytes(b []byte) {
	if len(b) > 0 {
		d.gate(unsafe.String(unsafe.SliceData(b), len(b)), true)
	}
}

// emitStr appends visible text. The first segment is kept without a copy, so
// prose passes through Feed without allocating.
func (d *Detector) emitStr(s string) {
	switch {
	case s == "":
	case d.multi:
		d.vis = append(d.vis, s...)
	case d.visStr == "":
		d.visStr = s
	default:
		d.vis = append(append(d.vis[:0], d.visStr...), s...)
		d.multi = true
	}
}

// emitCopy appends visible text that must be copied.
func (d *Detector) emitCopy(s string) {
	if s == "" {
		return
	}
	if !d.multi {
		d.vis = append(d.vis[:0], d.visStr...)
		d.multi = true
	}
	d.vis = append(d.vis, s...)
}

// found reports calls whose block stood here: after the visible text
// emitted so far in this Feed or End (Call.At).
func (d *Detector) found(calls []Call) {
	at := len(d.visStr)
	if d.multi {
		at = len(d.vis)
	}
	for i := range calls {
		calls[i].At = at
	}
	d.calls = append(d.calls, calls...)
}

// output returns the visible text of this Feed or End and resets it. Unless
// final, an incomplete UTF-8 sequence at its end is carried to the next call.
func (d *Detector) output(final bool) string {
	out := d.visStr
	if d.multi {
		out = string(d.vis)
	}
	d.visStr, d.multi = "", false
	d.vis = d.vis[:0]
	if !final {
		if k := incompleteRune(out); k > 0 {
			d.carry = append(d.carry[:0], out[len(out)-k:]...)
			out = out[:len(out)-k]
			// A call after the cut rune stays at the end of what is
			// returned.
			for i := range d.calls {
				d.calls[i].At = min(d.calls[i].At, len(out))
			}
		}
	}
	return out
}

// incompleteRune returns the length of an incomplete UTF-8 sequence at the
// end of s, or 0.
func incompleteRune(s string) int {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(s); k++ {
		c := s[len(s)-k]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRuneInString(s[len(s)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}

// emitCarry releases the incomplete UTF-8 sequence output held back from
// the last Feed. It passed the blank-run gate then, before any blank run
// held since (after a block removed after it), so it goes out first, not
// through the gate again, which would put that run before it.
func (d *Detector) emitCarry() {
	if len(d.carry) > 0 {
		d.emitCopy(unsafe.String(unsafe.SliceData(d.carry), len(d.carry)))
		d.carry = d.carry[:0]
	}
}
