package detect

import (
	"encoding/json"
	"strings"
)

// The end of the stream inside a block (rule 4): endBlock, and what a
// block of each syntax still open then is (its one seam, syntax.end).

// endOpen reads the body of a block the stream ended in, its close never
// having come. n < 0 says nothing in it is complete: the block is
// unclosed. Otherwise body[:n] is complete and, when cut is false, the
// whole block (a block without its close); when cut is true, body[:n]
// holds the calls that closed in it and body[n:] one the end cut off,
// a PARSE_ERROR (endCutSection).
type endOpen func(body string) (n int, cut bool)

// endAsItStands reads the block as it stands, its parser telling complete
// items from one the end cut off: a DSML wrapper left open, whose complete
// invokes are calls.
func endAsItStands(body string) (int, bool) { return len(body), false }

// endWhen reads the block as it stands when whole says its body is
// complete though its close never came: harmony's call whose <|call|> the
// server stopped at and dropped, Gemma 4's call closed by the end-of-turn
// token, which servers often strip.
func endWhen(whole func(body string) bool) endOpen {
	return func(body string) (int, bool) {
		if whole(body) {
			return len(body), false
		}
		return -1, false
	}
}

// endAfterLast is the seam of a section whose own close models leave out,
// last being the marker that ends each of its items: a body that ends
// with it (blank space after it aside) is complete. DeepSeek-R1 ends its
// section with <｜tool▁call▁end｜> and stops (llama.cpp's test-chat.cpp:
// "Look what's not here: <｜tool▁calls▁end｜>"). With keep, a section cut
// inside a later item keeps the items that closed before it (Kimi K3's
// tools section left open, MiniMax M3's tool_call).
func endAfterLast(last string, keep bool) endOpen {
	return func(body string) (int, bool) {
		if t := strings.TrimRight(body, " \t\r\n"); strings.HasSuffix(t, last) {
			return len(t), false
		}
		if k := strings.LastIndex(body, last); keep && k >= 0 {
			return k + len(last), true
		}
		return -1, false
	}
}

// endCutSection ends the stream inside a section after complete calls,
// body[:n], and inside a later one (endAfterLast): the complete calls are
// calls (Kimi K3's tools section left open, docs/tool-calls.md) and the
// cut one is a PARSE_ERROR. It reports whether it did: not when the
// complete part is not a block of calls.
func (d *Detector) endCutSection(body string, n int) bool {
	b := &d.blk
	done := b.syn.parse(body[:n])
	if done.err != nil {
		return false
	}
	cut := b.syn.sniff(body[n:])
	cut.err = ErrUnclosed
	calls := d.decide(b.syn, done)
	if calls == nil {
		return false
	}
	d.finish(append(calls, d.decide(b.syn, cut)...), len(d.block))
	return true
}

// endBlock ends the stream inside a block. A json body that is complete enough
// is parsed (a missing closing brace after a complete value is repaired,
// docs/tool-calls.md); anything else is unclosed.
func (d *Detector) endBlock() {
	b := &d.blk
	body := string(d.block[b.bodyStart:])
	closed := false
	switch {
	case !b.started && b.pre >= 0:
		// A body that never showed it is one ("{" and an unfinished first
		// key, "<tool_call> tags."): prose.
		d.finish(nil, 0)
		return
	case b.kind == kMarker && b.js.inString():
		if d.endCutString(body) {
			return
		}
	case b.kind == kJSONFence:
		if b.fl.closedAtEnd(len(d.block)) {
			b.bodyEnd, b.closeEnd, closed = b.fl.tickStart, b.fl.markEnd, true
		} else if json.Valid([]byte(body)) {
			b.bodyEnd, b.closeEnd, closed = len(d.block), len(d.block), true
		}
	case b.kind == kMarker && b.fence == 0 && b.syn.end != nil:
		n, cut := b.syn.end(body)
		switch {
		case n >= 0 && cut:
			if d.endCutSection(body, n) {
				return
			}
		case n >= 0:
			end := b.bodyStart + n
			b.bodyEnd, b.closeEnd, closed = end, end, true
		}
	case b.kind == kBalanced:
		var end int
		if closed, end = b.bal.complete(len(d.block)); closed {
			b.bodyEnd, b.closeEnd = end, end
		}
		// Closing braces are added only after a complete value; a body
		// the end cut inside one is unclosed, not repaired.
		if closed && end == len(d.block) && needsGuess(strings.TrimSpace(body)) != "" {
			closed = false
		}
	}
	if closed {
		d.finish(d.decide(b.syn, b.syn.parse(string(d.block[b.bodyStart:b.bodyEnd]))), b.closeEnd)
		return
	}
	pr := b.syn.sniff(body)
	pr.err = ErrUnclosed
	calls := d.decide(b.syn, pr)
	if calls == nil && b.rescannable() {
		d.reject()
		return
	}
	d.finish(calls, len(d.block))
}

// endCutString ends the stream inside a JSON string of a marker block
// whose body holds a closing marker: the model never closed the string
// ({"q": "abc</tool_call> and prose after it). The block ends at that
// marker after all, a PARSE_ERROR as any body cut inside a value is, and
// the rest of the reply is scanned again, as prose, instead of being lost
// in the block. It reports whether it did.
func (d *Detector) endCutString(body string) bool {
	b := &d.blk
	k := strings.Index(body, b.syn.close)
	if k < 0 {
		return false
	}
	end := b.bodyStart + k + len(b.syn.close)
	d.scanAgain(string(d.block[end:]), leadAfter(b.lead, string(d.block[:end])))
	d.block = d.block[:end]
	b.bodyEnd, b.closeEnd = end-len(b.syn.close), end
	calls := d.decide(b.syn, b.syn.parse(string(d.block[b.bodyStart:b.bodyEnd])))
	if calls == nil && b.rescannable() {
		d.reject()
		return true
	}
	d.finish(calls, end)
	return true
}

// endTail ends the stream after a fenced block: a fence left open, or
// closed by the last line, still holds just the block.
func (d *Detector) endTail() {
	b := &d.blk
	switch {
	case b.fl.closedAtEnd(len(d.block)):
		d.tailDone(b.fl.markEnd)
	case b.fl.blankSoFar():
		d.tailDone(b.closeEnd)
	default:
		d.emitBytes(d.block)
	}
}
