package detect

// A trail (syntax.trail) is a closing marker that may follow a block after
// blank space: the close of a wrapper whose opening the model left out, as
// Qwen3-Coder does when it drops <tool_call> but still writes its close,
//
//	<function=get_weather>…</function>
//	</tool_call>
//
// or a close some writers add after a block that ends at its bracket,
// Mistral's "[…][/TOOL_CALLS]". When it comes it is part of the block
// (Raw) and never reaches the client. Anything else ends the block at its own close, and the bytes held while
// waiting are scanned again: they may open the next block
// ("<｜tool▁call▁end｜><｜tool▁call▁begin｜>" shares a prefix with the trail
// "<｜tool▁calls▁end｜>"). The calls are reported once that is known.

// maxTrailHold bounds the blank space held before a trail.
const maxTrailHold = maxFenceHold

// scanTrail looks for d.blk.syn.trail after the block's close.
func (d *Detector) scanTrail(w string, p int) int {
	b := &d.blk
	tr := b.syn.trail
	for i := p; i < len(w); i++ {
		c := w[i]
		if b.tk == 0 && isBlank(c) {
			if len(d.block)+i-p-b.closeEnd < maxTrailHold {
				continue
			}
		} else if c == tr[b.tk] {
			if b.tk++; b.tk == len(tr) {
				d.block = append(d.block, w[p:i+1]...)
				b.closeEnd = len(d.block)
				return d.closed(b.calls, w, i+1)
			}
			continue
		}
		held := string(d.block[b.closeEnd:])
		d.block = d.block[:b.closeEnd]
		d.closed(b.calls, w, p)
		d.scanAgain(held, -1)
		return p
	}
	d.block = append(d.block, w[p:]...)
	return len(w)
}

// endTrail ends the stream while a trail may still come: the block ends at
// its own close, and what was held is scanned as the end of the stream.
func (d *Detector) endTrail() {
	b := &d.blk
	held := string(d.block[b.closeEnd:])
	d.block = d.block[:b.closeEnd]
	d.closed(b.calls, "", 0)
	d.scanAgain(held, -1)
}
