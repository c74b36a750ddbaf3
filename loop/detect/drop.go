package detect

import "fmt"

// A block over Options.MaxBlockBytes (docs/tool-calls.md, rule 4): reported
// with ErrTooLarge from the Feed in which it passes the limit, then dropped
// to its close (stDrop).

// overflow handles a block that passes MaxBlockBytes (the byte at w[p] is
// one too many). A block that would be taken is reported now with
// ErrTooLarge, and the rest of it is dropped (stDrop) up to its closing
// marker, or the end of the stream. A block that would not be taken (a
// format not taught, naming no known tool) is released as text, and
// scanning goes on at w[p].
func (d *Detector) overflow(w string, p int) int {
	b := &d.blk
	var pr parsed
	if len(d.block) > b.bodyStart {
		pr = b.syn.sniff(string(d.block[b.bodyStart:]))
	}
	pr.err = fmt.Errorf("%w: more than %d bytes", ErrTooLarge, d.max)
	calls := d.decide(b.syn, pr)
	if calls == nil {
		d.emitBytes(d.block)
		d.block = d.block[:0]
		d.st = stText
		if b.fence > 0 {
			d.st, d.fl = stFence, d.lineAt(w, p, b.fence, b.fch)
		}
		return p
	}
	calls[0].Raw = string(d.block[:min(len(d.block), d.max)])
	d.found(calls)
	d.cut()
	d.block = d.block[:0]
	d.st = stDrop
	// A dropped block runs to its close: its own marker again is just
	// more of it.
	b.openFail, b.mo, b.restart = nil, 0, 0
	return p
}

// scanDrop drops an oversize block up to its close. The blank space (and
// ';') a llama3_json run reads after an object, to see whether another
// is joined to it, is not the block's: it is kept in d.block and shown
// when the run ends, as it is after a run that was not dropped.
func (d *Detector) scanDrop(w string, p int) int {
	b := &d.blk
	n, closed := b.scan(w[p:], 0)
	if b.kind == kBalanced && b.bal.kind == balLlama3 {
		d.keepTail(w[p : p+n])
	}
	if !closed {
		return len(w)
	}
	d.st = stText
	d.emitBytes(d.block)
	d.block = d.block[:0]
	if b.kind != kJSONFence && b.fence > 0 { // consume the closing fence too
		d.st, b.dropped, b.closeEnd = stTail, true, 0
		b.fl = fenceLine{n: b.fence, ch: b.fch, strict: true}
	}
	return p + n
}

// keepTail keeps the bytes a dropped llama3_json run has read after its
// last object, s being the bytes it read last: bal.tail of them, which
// go back into earlier pieces only when no object ended in s.
func (d *Detector) keepTail(s string) {
	z := &d.blk.bal
	switch {
	case z.phase != phTail && z.phase != phSemi:
		d.block = d.block[:0]
	case z.tail <= len(s):
		d.block = append(d.block[:0], s[len(s)-z.tail:]...)
	default:
		d.block = append(d.block, s...)
	}
}
