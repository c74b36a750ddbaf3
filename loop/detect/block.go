package detect

import "strings"

// blockKind is how a block ends.
type blockKind uint8

const (
	kMarker    blockKind = iota // at its closing marker
	kBalanced                   // at the bracket that balances its first (syntax.bal)
	kJSONFence                  // json mode: at the closing fence line
)

// block is the block being read (stBlock), dropped (stDrop) or waiting for
// its closing fence (stTail). Offsets index Detector.block.
type block struct {
	syn       *syntax
	kind      blockKind
	fence     int  // fence characters of the enclosing fence; 0 when not fenced
	fch       byte // the fence's character, '`' or '~'
	bodyStart int  // where the body begins (after the opening marker)
	started   bool // the body starts like one (syntax.start)
	pre       int  // where the body's first non-blank byte is, or -1
	mk        int  // kMarker: bytes of syn.close matched
	open      string
	mo        int   // kMarker, not fenced: bytes of open matched in the body
	lead      int   // line state (see leadAfter) where the block opened
	openFail  []int // KMP failure table of open; nil: no restart
	restart   int   // set by scan: where the open marker was found again
	bal       balancer
	js        jsonStrings // kMarker: the body's JSON strings, where markers are data
	fl        fenceLine
	bodyEnd   int    // set when closed: where the body ends
	closeEnd  int    // set when closed: where the close ends
	calls     []Call // stTail, stTrail: calls waiting for the closing fence or the trail
	dropped   bool   // stTail after stDrop: the call was reported already
	tk        int    // stTrail: bytes of syn.trail matched
}

// openMarker starts a block of syn whose markup so far (fence included) is
// prefix; open is its opening marker ("" for a bare json, llama3_json or
// pythonic block, which opens at its bracket) and lead the line state
// before it.
func (d *Detector) openMarker(syn *syntax, prefix, open string, fence, lead int) {
	d.st = stBlock
	d.blk = block{syn: syn, fence: fence, bodyStart: len(prefix), pre: -1, open: open, lead: lead}
	d.blk.js.start(syn.jsonBody)
	if syn.close == "" {
		d.blk.kind = kBalanced
		d.blk.bal = balancer{kind: syn.bal, phase: phCount}
		if syn.bal == balMistral || syn.bal == balGemma {
			d.blk.bal.phase = phFirst
		}
	}
	d.block = append(d.block[:0], prefix...)
}

// openJSONFence starts a json block in a fence whose opening line and blank
// lines are prefix.
func (d *Detector) openJSONFence(prefix string, fence int, ch byte) {
	syn := &synJSON
	if !d.json {
		syn = &synJSONFenced // auto: known tools only
	}
	d.st = stBlock
	d.blk = block{syn: syn, kind: kJSONFence, fence: fence, fch: ch, bodyStart: len(prefix), pre: -1}
	d.blk.fl = fenceLine{n: fence, ch: ch}
	d.block = append(d.block[:0], prefix...)
}

// scanBlock holds the block's bytes until it closes, or passes the limit.
func (d *Detector) scanBlock(w string, p int) int {
	b := &d.blk
	for p < len(w) {
		room := d.max - len(d.block)
		if room <= 0 {
			return d.overflow(w, p)
		}
		s := w[p:min(len(w), p+room)]
		if !b.started {
			if b.pre < 0 {
				j := 0
				for j < len(s) && isBlank(s[j]) {
					j++
				}
				d.block = append(d.block, s[:j]...)
				p += j
				if s = s[j:]; s == "" {
					continue
				}
				b.pre = len(d.block)
			}
			held := len(d.block) - b.pre
			cand := s
			if held > 0 {
				cand = string(d.block[b.pre:]) + s
			}
			res, at := b.syn.start(cand)
			if res == startNo && b.syn.alt != nil {
				b.syn = b.syn.alt
				b.bal = balancer{kind: b.syn.bal, phase: phCount}
				r, a := b.syn.start(cand)
				if r == startNo {
					// Neither: the bytes the first read as its own
					// are prose, as they were before it had an alt.
					a = max(a, at)
				}
				res, at = r, a
			}
			if res == startNo && d.strictBody() {
				res = startOK
			}
			switch res {
			case startMore:
				d.block = append(d.block, s...)
				p += len(s)
				continue
			case startDone:
				return d.startDone(w, p, max(at, held)-held)
			case startNo:
				if at < held { // the check gave up on a byte held before
					return d.giveBack(w, p, b.pre+at)
				}
				d.block = append(d.block, s[:at-held]...)
				return d.notABlock(w, p+at-held)
			}
			// The closer sees the held bytes now. They never close the
			// block: a start check ends at a json key or before a '<'.
			if held > 0 {
				b.scan(string(d.block[b.pre:]), b.pre)
				if b.restart > 0 {
					d.restartBlock()
					return p
				}
			}
			b.started = true
		}
		n, closed := b.scan(s, len(d.block))
		d.block = append(d.block, s[:n]...)
		p += n
		if closed {
			return d.closeBlock(w, p)
		}
		if b.restart > 0 {
			d.restartBlock()
			b = &d.blk
		}
	}
	return p
}

// startDone closes a block whose start check read all of it: its last
// byte is w[p+k-1].
func (d *Detector) startDone(w string, p, k int) int {
	b := &d.blk
	d.block = append(d.block, w[p:p+k]...)
	b.started = true
	b.bodyEnd, b.closeEnd = len(d.block), len(d.block)
	return d.closeBlock(w, p+k)
}

// strictBody reports whether the block being read is a call whatever its
// body turns out to be (rule 2: in the taught format a block is always a
// call): a marker of the taught format outside a fence whose body starts
// on the next line, as the prompt teaches. On its own line nothing is
// prose naming the tag ("the <tool_call> tag is…"), so a body no parser
// can read ("<tool_call>\nget weather for Paris please\n</tool_call>")
// becomes a PARSE_ERROR instead of reaching the client as text. The
// markers held before the body started never close the block: a start
// check gives up before a closing marker is whole.
func (d *Detector) strictBody() bool {
	b := &d.blk
	return b.kind == kMarker && b.fence == 0 && d.taught(b.syn) &&
		strings.IndexByte(string(d.block[b.bodyStart:b.pre]), '\n') >= 0
}

// scan feeds s to the block's closer; base is the offset of s[0]. It returns
// how many bytes belong to the block and whether it closed. A fence closes
// at the newline after its closing backticks, which is not consumed.
func (b *block) scan(s string, base int) (int, bool) {
	switch b.kind {
	case kBalanced:
		n, closed, bodyEnd, closeEnd := b.bal.scan(s, base)
		if closed {
			b.bodyEnd, b.closeEnd = bodyEnd, closeEnd
		}
		return n, closed
	case kJSONFence:
		for i := 0; i < len(s); i++ {
			if b.fl.st == flMid {
				j := strings.IndexByte(s[i:], '\n')
				if j < 0 {
					return len(s), false
				}
				i += j
			}
			if b.fl.step(s[i], base+i) == flClosed {
				b.bodyEnd, b.closeEnd = b.fl.tickStart, b.fl.markEnd
				return i, true
			}
		}
	default:
		return b.scanMarker(s, base)
	}
	return len(s), false
}

// scanMarker is scan for a block that ends at its closing marker. Inside
// a JSON string of its body neither the closing marker nor the block's own
// opening marker counts: both are data there (jsonstr.go).
func (b *block) scanMarker(s string, base int) (int, bool) {
	cl, t := b.syn.close, b.syn.fail
	op, ot := b.open, b.openFail
	for i := 0; i < len(s); i++ {
		switch {
		case b.js.active():
			if b.js.phase == jpStr {
				// The string's bytes up to its next quote or backslash
				// are data: skip them. (Not after a backslash: the
				// byte it escapes is stepped, or a quote right after
				// an escape such as \0 would be taken for the escaped one.)
				j := strings.IndexAny(s[i:], `"\`)
				if j < 0 {
					return len(s), false
				}
				i += j
			}
			if b.js.step(s[i]); b.js.inString() {
				b.mk, b.mo = 0, 0
				continue
			}
		case b.mk == 0 && b.mo == 0:
			// Every closing and opening marker starts with its
			// syntax's first byte ('<'), so prose between is skipped.
			j := strings.IndexByte(s[i:], cl[0])
			if j < 0 {
				return len(s), false
			}
			i += j
		}
		c := s[i]
		for b.mk > 0 && c != cl[b.mk] {
			b.mk = t[b.mk-1]
		}
		if c == cl[b.mk] {
			b.mk++
		}
		if b.mk == len(cl) {
			b.mk = 0
			b.closeEnd = base + i + 1
			b.bodyEnd = b.closeEnd - len(cl)
			return i + 1, true
		}
		if ot == nil {
			continue
		}
		for b.mo > 0 && c != op[b.mo] {
			b.mo = ot[b.mo-1]
		}
		if c == op[b.mo] {
			b.mo++
		}
		if b.mo == len(op) {
			// The block's own opening marker again, before its
			// close: the first was stray ("<tool_call>" and no
			// call), and the block starts over here.
			b.restart = base + i + 1 - len(op)
			return i + 1, false
		}
	}
	return len(s), false
}

// restartBlock releases the block up to b.restart as text and opens the
// block again at the marker found there.
func (d *Detector) restartBlock() {
	b := &d.blk
	at := b.restart
	d.emitBytes(d.block[:at])
	lead := leadAfter(b.lead, string(d.block[:at]))
	syn, open, fail := b.syn, b.open, b.openFail
	rest := string(d.block[at:])
	d.openMarker(syn, open, open, 0, lead)
	d.blk.openFail = fail
	// Bytes read past the marker in the same piece are fed again.
	d.scanAgain(rest[len(open):], leadAfter(lead, open))
}

// reject releases a marker block that is not a call (rule 6): its opening
// marker is text, and the rest is scanned again, so that a real call right
// after a stray or look-alike marker is still found.
func (d *Detector) reject() {
	b := &d.blk
	d.emitBytes(d.block[:b.bodyStart])
	d.scanAgain(string(d.block[b.bodyStart:]), leadAfter(b.lead, b.open))
	d.block = d.block[:0]
	d.st = stText
}

// rescannable reports whether a rejected block is scanned again: a marker
// block outside a fence. (Bracket blocks are data when rejected, and stay
// text byte for byte; fenced code is never run.)
func (b *block) rescannable() bool {
	return b.kind == kMarker && b.fence == 0 && b.open != ""
}

// notABlock releases an opening marker whose body does not start like one
// ("<tool_call> is the tag"); prose goes on at w[p].
func (d *Detector) notABlock(w string, p int) int {
	d.emitBytes(d.block)
	d.block = d.block[:0]
	d.st = stText
	if d.blk.fence > 0 {
		d.st, d.fl = stFence, d.lineAt(w, p, d.blk.fence, d.blk.fch)
	}
	return p
}

// lineAt returns a fence-line recogniser for a fence of n ch characters,
// positioned before w[p].
func (d *Detector) lineAt(w string, p, n int, ch byte) fenceLine {
	f := fenceLine{n: n, ch: ch}
	if lead := d.leadAt(w, p); lead >= 0 {
		f.st, f.spaces = flIndent, lead
	}
	return f
}

// closeBlock parses a closed block. A fenced marker block waits for its
// closing fence (stTail) before its calls are reported.
func (d *Detector) closeBlock(w string, p int) int {
	b := &d.blk
	calls := d.decide(b.syn, b.syn.parse(string(d.block[b.bodyStart:b.bodyEnd])))
	if calls != nil && b.kind != kJSONFence && b.syn.trail != "" {
		d.st, b.calls, b.tk = stTrail, calls, 0
		return p
	}
	return d.closed(calls, w, p)
}

// closed goes on after a block whose markup ends at d.blk.closeEnd, at
// w[p]: its calls (nil: text) are reported, or wait for a closing fence.
func (d *Detector) closed(calls []Call, w string, p int) int {
	b := &d.blk
	if b.kind != kJSONFence && b.fence > 0 {
		if calls == nil { // not a tool block: the fence is plain code
			d.emitBytes(d.block)
			d.block = d.block[:0]
			d.st, d.fl = stFence, d.lineAt(w, p, b.fence, b.fch)
			return p
		}
		b.calls = calls
		d.st = stTail
		b.fl = fenceLine{n: b.fence, ch: b.fch, strict: true}
		return p
	}
	if calls == nil && b.rescannable() {
		d.reject()
		return p
	}
	d.finish(calls, b.closeEnd)
	return p
}

// finish reports calls whose markup is d.block[:rawEnd] and releases the
// rest; with no calls the whole block is released as text.
func (d *Detector) finish(calls []Call, rawEnd int) {
	if calls == nil {
		d.emitBytes(d.block)
	} else {
		raw := string(d.block[:rawEnd])
		for i := range calls {
			calls[i].Raw = raw
		}
		d.found(calls)
		d.cut()
		d.emitBytes(d.block[rawEnd:])
	}
	d.block = d.block[:0]
	d.st = stText
}

// scanTail reads what follows a block inside a fence: blank space and the
// closing fence make the whole fence the block; anything else makes it a
// longer example, shown as code (rule 8).
func (d *Detector) scanTail(w string, p int) int {
	b := &d.blk
	for i := p; i < len(w); i++ {
		pos := len(d.block) + i - p
		r := flFailed
		if pos-b.closeEnd < maxFenceHold {
			r = b.fl.step(w[i], pos)
		}
		switch r {
		case flClosed:
			d.block = append(d.block, w[p:i]...)
			d.tailDone(b.fl.markEnd)
			return i // the newline is prose
		case flFailed:
			d.block = append(d.block, w[p:i]...)
			d.tailFail()
			return i
		}
	}
	d.block = append(d.block, w[p:]...)
	return len(w)
}

// tailDone reports the fenced block whose markup ends at rawEnd.
func (d *Detector) tailDone(rawEnd int) {
	if d.blk.dropped {
		d.emitBytes(d.block[rawEnd:])
		d.block = d.block[:0]
		d.st = stText
		return
	}
	d.finish(d.blk.calls, rawEnd)
}

// tailFail releases the fence and its block as code; the byte that failed
// is stepped again as code.
func (d *Detector) tailFail() {
	d.emitBytes(d.block)
	d.block = d.block[:0]
	d.st, d.fl = stFence, d.blk.fl
	d.fl.strict = false
}
