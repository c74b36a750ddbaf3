package detect

import "strings"

// endCutSection ends the stream inside a section whose syntax has a
// lastClose, after complete calls and inside a later one: the complete
// calls are calls (Kimi K3's tools section left open, docs/tool-calls.md)
// and the cut one is a PARSE_ERROR. It reports whether it did: not when
// no call closed, nor when the complete part is not a block of calls.
func (d *Detector) endCutSection(body string) bool {
	b := &d.blk
	k := strings.LastIndex(body, b.syn.lastClose)
	if k < 0 || !b.syn.cutKeeps {
		return false
	}
	done := b.syn.parse(body[:k+len(b.syn.lastClose)])
	if done.err != nil {
		return false
	}
	cut := b.syn.sniff(body[k+len(b.syn.lastClose):])
	cut.err = ErrUnclosed
	calls := d.decide(b.syn, done)
	if calls == nil {
		return false
	}
	d.finish(append(calls, d.decide(b.syn, cut)...), len(d.block))
	return true
}
