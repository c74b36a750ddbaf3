package detect

import "strings"

// The states that read harmony's channel structure (harmony.go): the start
// of a reply (stStart), a header (stHeader), and an analysis message
// (stReason). A final or commentary message is prose (stText), a call a
// block (stBlock).

// harmonyState is what the detector keeps of harmony once it met it.
type harmonyState struct {
	reason   []byte // the reasoning of this Feed or End
	seen     bool   // a harmony header was read
	stripped bool   // the reply is in the stripped form
	// implicit says the header being read is the one the prompt opened;
	// lead is the line state before it.
	implicit bool
	lead     int
	syn      syntax // the syntax of the call being read
}

// harmony returns the harmony state, made on first use.
func (d *Detector) harmony() *harmonyState {
	if d.hm == nil {
		d.hm = new(harmonyState)
	}
	return d.hm
}

// harmonyOn reports whether harmony's end tokens are dropped and a header
// whose channel gpt-oss does not write still counts: harmony or auto is
// taught, or the reply has shown a harmony header already. Elsewhere
// "<|end|>" in prose stays prose.
func (d *Detector) harmonyOn() bool {
	return d.taughtFmt == Harmony || d.taughtFmt == Auto || d.hm != nil && d.hm.seen
}

// atHarmony acts on a harmony token m found at w[i], after the prose
// w[p:i]. ok false says it is prose here.
func (d *Detector) atHarmony(w string, p, i int) (next int, ok bool) {
	d.emit(w[p:i])
	d.openHeader(false, d.leadAt(w, i))
	return i, true
}

// openHeader starts reading a header from the next byte scanned: at its
// opening token, or (implicit) at the start of the reply.
func (d *Detector) openHeader(implicit bool, lead int) {
	h := d.harmony()
	d.st, h.implicit, h.lead = stHeader, implicit, lead
	d.block = d.block[:0]
}

// scanHeader holds a header's bytes until readHeader can tell what it is.
func (d *Detector) scanHeader(w string, p int) int {
	take := w[p:min(len(w), p+maxHeader+1-len(d.block))]
	s := take // a view of the caller's text: what is kept is copied
	if len(d.block) > 0 {
		s = string(d.block) + take
	}
	h, res := readHeader(s)
	if res == hdrMore && len(s) <= maxHeader {
		d.block = append(d.block, take...)
		return p + len(take)
	}
	d.block = d.block[:0]
	if res == hdrDone && (h.known() || d.harmonyOn()) {
		d.hm.seen = true
		// A message's content starts a line, however the header came
		// in pieces: the line state at the end of what was fed too.
		d.scanAgain(s[h.n:], 0)
		d.lead = leadAfter(leadAfter(0, s[h.n:]), w[p+len(take):])
		d.openMessage(h, s[:h.n])
		return p + len(take)
	}
	d.notHeader(s)
	return p + len(take)
}

// notHeader releases s, the bytes read as a header, as prose: they are no
// header. Where harmony is read its opening token (and the role after
// <|start|>) is still dropped ("<|channel|>??" shows "??").
func (d *Detector) notHeader(s string) {
	d.st = stText
	k := 0
	if !d.hm.implicit {
		k = len(hmChannel)
		if strings.HasPrefix(s, hmStart) {
			k = len(hmStart)
			if d.harmonyOn() {
				j, _ := nameEnd(s[k:])
				k += j
			}
		}
		if !d.harmonyOn() {
			d.emit(s[:k])
		}
	}
	d.scanAgain(s[k:], leadAfter(d.hm.lead, s[:k]))
}

// openMessage goes on after header h, written as hdr: an analysis message
// is reasoning, a message with a recipient a call, any other prose.
func (d *Detector) openMessage(h header, hdr string) {
	switch {
	case h.recipient != "":
		name := strings.Clone(hmName(h.recipient))
		syn := &d.hm.syn
		*syn = hmCallSyntax
		syn.parse = func(body string) parsed { return parseHarmony(name, body) }
		syn.sniff = func(string) parsed { return parsed{name: name} }
		d.openMarker(syn, hdr, hdr, 0, d.hm.lead)
		d.blk.started = true
	case h.channel == "analysis":
		d.st = stReason
	default:
		d.st = stText
	}
}

// scanStart looks at the start of the reply for what a header the prompt
// opened leaves: a recipient (" to=functions.NAME<|channel|>…"), or the
// stripped "analysis" of a server that drops special tokens, right before
// a capital letter or a digit ("analysisWe need…").
func (d *Detector) scanStart(w string, p int) int {
	s := w[p:]
	j := skipSpaces(s, 0)
	if j == len(s) {
		d.holdFrom(w, p)
		return len(w)
	}
	switch prefixRes(s[j:], "to=") {
	case startMore:
		d.holdFrom(w, p)
		return len(w)
	case startOK:
		d.openHeader(true, 0)
		return p
	}
	switch r := prefixRes(s, hmAnalysisStripped); {
	case r == startMore || r == startOK && len(s) == len(hmAnalysisStripped):
		d.holdFrom(w, p)
		return len(w)
	case r == startOK && isCapOrDigit(s[len(hmAnalysisStripped)]):
		h := d.harmony()
		d.st, h.seen, h.stripped = stReason, true, true
		return p + len(hmAnalysisStripped)
	}
	d.st = stText
	return p
}

func isCapOrDigit(c byte) bool { return 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }

// scanReason releases an analysis message as reasoning up to its end
// token (dropped) or the next header. In a stripped reply it ends at
// "assistantfinal", where the answer starts, or at "assistantcommentary",
// where a header the tokens of which were dropped starts
// (" to=functions.NAME json{…}"). A suffix that may still become one of
// those is held.
func (d *Detector) scanReason(w string, p int) int {
	for i := p; i < len(w); i++ {
		j := strings.IndexByte(w[i:], '<')
		k := -1
		if d.hm.stripped {
			k = strings.Index(w[i:], hmAssistant)
		}
		if k >= 0 && (j < 0 || k < j) {
			i += k
			switch prefixRes(w[i:], hmFinalStripped, hmCommentaryStripped) {
			case startMore:
				d.reasoning(w[p:i])
				d.holdFrom(w, i)
				return len(w)
			case startOK:
				d.reasoning(w[p:i])
				d.hm.stripped = false
				if strings.HasPrefix(w[i:], hmFinalStripped) {
					d.st = stText
					return i + len(hmFinalStripped)
				}
				d.openHeader(true, 0)
				return i + len(hmCommentaryStripped)
			}
			continue // "assistant" in the reasoning's own words
		}
		if j < 0 {
			return d.reasonTail(w, p)
		}
		i += j
		switch r := prefixRes(w[i:], hmTokens...); r {
		case startMore:
			d.reasoning(w[p:i])
			d.holdFrom(w, i)
			return len(w)
		case startOK:
			d.reasoning(w[p:i])
			d.st, d.hm.stripped = stText, false
			return i // prose again: the token is dropped or opens a header
		}
	}
	return d.reasonTail(w, p)
}

// reasonTail releases w[p:] as reasoning but for a suffix that may still
// become "assistant" in a stripped reply.
func (d *Detector) reasonTail(w string, p int) int {
	if d.hm.stripped {
		for k := min(len(hmAssistant)-1, len(w)-p); k > 0; k-- {
			if strings.HasSuffix(w, hmAssistant[:k]) {
				d.reasoning(w[p : len(w)-k])
				d.holdFrom(w, len(w)-k)
				return len(w)
			}
		}
	}
	d.reasoning(w[p:])
	return len(w)
}

// reasoning adds s to what [Detector.Reasoning] returns.
func (d *Detector) reasoning(s string) { d.hm.reason = append(d.hm.reason, s...) }

// Reasoning returns the reasoning Feed and End took out of the content
// since the last call of Reasoning: harmony's analysis messages (rule 7),
// which the caller sends as reasoning, before that Feed's visible text.
// Nothing in it runs. (It is taken here, not reset by each Feed, so that
// prose pays nothing for harmony.)
func (d *Detector) Reasoning() string {
	if d.hm == nil || len(d.hm.reason) == 0 {
		return ""
	}
	r := string(d.hm.reason)
	d.hm.reason = d.hm.reason[:0]
	return r
}

// endHarmony ends the stream in a harmony state: a header cut off is
// dropped where harmony is read (shown elsewhere), held reasoning is
// reasoning, the held start of a reply prose.
func (d *Detector) endHarmony() {
	switch d.st {
	case stHeader:
		s := string(d.block)
		d.block = d.block[:0]
		h, _ := readHeader(s)
		switch {
		case d.hm.implicit && !strings.Contains(s, "to="), !d.hm.implicit && !h.known() && !d.harmonyOn() && !strings.Contains(s, "to="):
			d.notHeader(s)
		case strings.Contains(s, "to="):
			// A call's header cut off: unclosed (rule 4).
			d.endCutHeader(s)
		}
	case stReason:
		d.reasoning(string(d.hold))
		d.hold = d.hold[:0]
	case stStart:
		d.st = stText
		d.scanAgain(string(d.hold), 0)
		d.hold = d.hold[:0]
	}
}

// endCutHeader ends the stream inside the header s of a call: a call with
// ErrUnclosed, or prose under rule 6.
func (d *Detector) endCutHeader(s string) {
	_, r, _ := strings.Cut(s, "to=")
	k := 0
	for k < len(r) && isNameByte(r[k]) {
		k++
	}
	calls := d.decide(&hmCallSyntax, parsed{name: hmName(r[:k]), err: ErrUnclosed})
	if calls == nil {
		d.notHeader(s)
		return
	}
	calls[0].Raw = s
	d.found(calls)
	d.st = stText
}

// scanFenceHarmony is scanFence where harmony is read: a message that ends
// inside a code fence ("```python … <|return|>") ends the fence too, and
// its end token is dropped as in prose, never shown as code. A suffix
// that may still become a token is held.
func (d *Detector) scanFenceHarmony(w string, p int) int {
	lim, more := len(w), false
	for i := p; i < len(w); i++ {
		j := strings.Index(w[i:], "<|")
		if j < 0 {
			break
		}
		i += j
		if r := prefixRes(w[i:], hmTokens...); r != startNo {
			lim, more = i, r == startMore
			break
		}
	}
	if lim == len(w) && len(w) > p && w[len(w)-1] == '<' {
		lim, more = len(w)-1, true
	}
	q := d.scanFenceCode(w[:lim], p)
	switch {
	case d.st != stFence || lim == len(w):
		return q
	case more:
		d.holdFrom(w, lim)
		return len(w)
	}
	d.st = stText
	return lim
}
