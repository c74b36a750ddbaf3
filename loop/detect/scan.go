package detect

import "strings"

// state is where the detector is in the content.
type state uint8

const (
	// stText: prose. Released at once, except a suffix that may still open
	// a marker or a fence (held in Detector.hold).
	stText state = iota
	// stThink: inside <think>…</think>. Visible, never executed (rule 7).
	stThink
	// stFence: inside a fenced code block that is not a single tool block.
	// Visible, never executed (rule 8).
	stFence
	// stBlock: inside a block; held until it closes.
	stBlock
	// stTail: a fenced block closed; waiting for the closing fence.
	stTail
	// stDrop: the block passed MaxBlockBytes and was reported; its bytes
	// are dropped until its close.
	stDrop
	// stTrail: a block whose syntax has a trail closed; what follows is
	// held while it may still be that trail.
	stTrail
	// stStart, stHeader, stReason: harmony's start of a reply, a header
	// being read, an analysis message (harmonyscan.go).
	stStart
	stHeader
	stReason
)

// Bytes that need a closer look in prose (specOpen): '<' and '[' may open
// a marker, '`' and '~' a fence, '[' a pythonic call list and, where json
// or llama3_json is detected, '{' an object and '[' a json array. Where
// functools[…] is looked for, a line break is flagged too (specNL): only
// a piece in which a line may start needs the functools check.
//
// minimax_m3's namespace token "]<]minimax[>[" starts with ']', which
// prose is full of ("[1]", "[x](url)"): ']' is no specOpen byte, and the
// token is read at its '<' (atMarker looks one byte back when "<]"
// follows). Only a ']' ending a piece is held, until the next byte shows
// whether the token starts there (rule 5: a marker split at any byte is
// read as a whole one).
type specTable [256]uint8

const (
	specOpen uint8 = 1 << iota
	specNL
)

var specialText, specialBrace, specialBraceNL specTable

func init() {
	for _, c := range "<[`~" {
		specialText[c] = specOpen
		specialBrace[c] = specOpen
	}
	specialBrace['{'] = specOpen
	specialBraceNL = specialBrace
	specialBraceNL['\n'] = specNL
}

// leadAfter returns the line state after s, given the state prev before it.
// The line state is the number of spaces (0–3) between the start of the
// current line and the end of the text, or -1 when the line holds anything
// else (or four spaces, which make an indented code block, not a fence).
// A fence opens or closes only where the line state is not -1.
func leadAfter(prev int, s string) int {
	n := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case '\n':
			return n
		case ' ':
			if n++; n > 3 {
				return -1
			}
		default:
			return -1
		}
	}
	if prev < 0 || prev+n > 3 {
		return -1
	}
	return prev + n
}

// leadAt is the line state before w[i].
func (d *Detector) leadAt(w string, i int) int {
	return leadAfter(d.winLead, w[:i])
}

// holdFrom keeps w[i:] for the next Feed.
func (d *Detector) holdFrom(w string, i int) {
	d.holdLead = d.leadAt(w, i)
	d.hold = append(d.hold[:0], w[i:]...)
}

// scanText releases prose up to the next marker, fence or (json mode) '{'.
func (d *Detector) scanText(w string, p int) int {
	spec := d.spec
	_ = spec[0] // one nil check, not one a byte
	for i := p; i < len(w); i++ {
		k, s := 0, w[i:]
		for k < len(s) && spec[s[k]]&specOpen == 0 {
			k++
		}
		if i += k; i == len(w) {
			break
		}
		switch c := w[i]; c {
		case '<', '[':
			if next, ok := d.atMarker(w, p, i); ok {
				return next
			}
		case '`', '~':
			if d.leadAt(w, i) < 0 {
				continue
			}
			q, res := d.fenceOpen(w, i)
			if res == fenceNone {
				i = q - 1
				continue
			}
			return d.openFence(w, p, i, q, res)
		case '{':
			if d.gemma && i > p && isNameByte(w[i-1]) {
				if k := d.gemmaBefore(w, p, i); k >= 0 {
					return d.openGemmaBare(w, p, k)
				}
			}
			if d.functools && d.functoolsBefore(w, p, i) {
				return d.openFunctools(w, p, i)
			}
			if d.json || d.llama3 && d.leadAt(w, i) >= 0 {
				return d.openBracket(w, p, i)
			}
		}
	}
	if d.functools {
		if k := functoolsTail(w, p, d.winLead); k >= 0 {
			d.emit(w[p:k])
			d.holdFrom(w, k)
			return len(w)
		}
	}
	if d.gemma {
		if k := gemmaTail(w, p, d.winLead); k >= 0 {
			d.emit(w[p:k])
			d.holdFrom(w, k)
			return len(w)
		}
	}
	if n := len(w); n > p && w[n-1] == ']' {
		d.emit(w[p : n-1]) // a ']' that may start minimax_m3's token
		d.holdFrom(w, n-1)
		return len(w)
	}
	d.emit(w[p:])
	return len(w)
}

// atMarker reads w[i], a '<', '[' or ']' in prose after w[p:]: a marker it
// opens, one it may open once more is read (held), or the bracket of a
// block without a marker. ok false says it opens nothing: it is prose.
func (d *Detector) atMarker(w string, p, i int) (next int, ok bool) {
	c := w[i]
	var m *marker
	more := false
	if i+2 >= len(w) || d.markers.pairs.has(w[i+1], w[i+2]) { // most open nothing
		m, more = d.matchMarker(w[i:], false)
	}
	if more {
		h := i
		switch {
		case c == '[' && d.functools && d.functoolsBefore(w, p, i):
			h -= len(functools) // "functools[" may open a list
		case c == '<' && i > p && w[i-1] == ']':
			h-- // "]<]" may open minimax_m3's token
		}
		d.emit(w[p:h])
		d.holdFrom(w, h)
		return len(w), true
	}
	if m == nil {
		if c == '[' && d.functools && d.functoolsBefore(w, p, i) {
			return d.openFunctools(w, p, i), true
		}
		if c == '[' && (d.json || d.pythonic && d.leadAt(w, i) >= 0) {
			return d.openBracket(w, p, i), true
		}
		return 0, false // a '<' or '[' that opens nothing is prose
	}
	if m.whole != nil {
		// The tail of a marker that starts one byte before: it opens
		// a block only where that byte is prose still (i > p) and is
		// the marker's first.
		if i == p || w[i-1] != m.whole.open[0] {
			return 0, false
		}
		i, m = i-1, m.whole
	}
	if m.strip != "" {
		return d.atStrip(m, w, p, i)
	}
	if m.syn != nil && m.syn.format == Harmony {
		return d.atHarmony(w, p, i)
	}
	end := i + len(m.open)
	if m.syn == nil { // <think>: shown, and nothing inside runs
		d.emit(w[p:end])
		d.st, d.think, d.thinkEnd = stThink, 0, thinkClose
		if m.thinkEnd != "" {
			d.thinkEnd = m.thinkEnd
		}
		return end, true
	}
	d.emit(w[p:i])
	d.openMarker(m.syn, w[i:end], m.open, 0, d.leadAt(w, i))
	if m.syn.close != "" {
		d.blk.openFail = m.fail
	}
	return end, true
}

// openFence acts on the fence fenceOpen found at w[i:q], after the prose
// w[p:i]: one it cannot tell yet is held, a plain fence is shown, and a
// fence that opens a block is held with the block.
func (d *Detector) openFence(w string, p, i, q int, res int) int {
	switch res {
	case fenceMore:
		d.emit(w[p:i])
		d.holdFrom(w, i)
		return len(w)
	case fencePlain:
		d.emit(w[p:q])
		d.st, d.fl = stFence, fenceLine{n: d.fl.n, ch: d.fl.ch}
		return q
	default: // fenceBlock, fenceJSON: the fence is held with the block
		d.emit(w[p:i])
		return q
	}
}

// openBracket opens a block without a marker at the bracket w[i]: a bare
// json object or array, a llama3_json object or a pythonic call list. Its
// start check releases it at once when it is not one.
func (d *Detector) openBracket(w string, p, i int) int {
	syn := &synJSONBare
	switch {
	case d.json:
	case w[i] == '{' && d.autoJSON:
		syn = &synLlama3Auto
	case w[i] == '{':
		syn = &synLlama3
	case d.autoJSON:
		syn = &synPythonicAuto
	default:
		syn = &synPythonic
	}
	d.emit(w[p:i])
	d.openMarker(syn, "", "", 0, d.leadAt(w, i))
	return i
}

// What fenceOpen found.
const (
	fenceNone  = iota // not a fence: prose goes on after the backticks
	fenceMore         // may still be a fence around a block: hold
	fencePlain        // a code fence that is not a tool block
	fenceBlock        // a fence around a block: the block is open
)

// maxFenceHold bounds what is held to decide whether a fence opens a tool
// block: the fence line, the blank lines after it and the opening marker
// must fit, or the fence is an ordinary code block.
const maxFenceHold = 160

// fenceOpen looks at a run of backticks or tildes at w[i], at the start of
// a line. A fence whose body starts with an opening marker (or, in json
// mode, with '{' or '[') may be a single tool block (rule 8):
//
//	```xml
//	<tool_use>…</tool_use>
//	```
//
// For fenceBlock the block is opened and q is where its body goes on; for
// fencePlain d.fl holds the fence's width and character and q is where the
// code goes on; for fenceNone q is after the run.
func (d *Detector) fenceOpen(w string, i int) (q int, res int) {
	s, capped := w[i:], false
	if len(s) > maxFenceHold {
		s, capped = s[:maxFenceHold], true
	}
	ch := s[0]
	ticks := 0
	for ticks < len(s) && s[ticks] == ch {
		ticks++
	}
	d.fl.ch = ch
	undecided := func() (int, int) {
		if !capped {
			return 0, fenceMore
		}
		d.fl.n = ticks
		return i + ticks, fencePlain
	}
	if ticks == len(s) {
		return undecided()
	}
	if ticks < 3 {
		return i + ticks, fenceNone
	}
	nl := strings.IndexByte(s[ticks:], '\n')
	info := s[ticks:]
	if nl >= 0 {
		info = info[:nl]
	}
	if ch == '`' && strings.IndexByte(info, '`') >= 0 {
		return i + ticks, fenceNone // CommonMark: no backtick in a backtick fence's info string
	}
	if nl < 0 {
		return undecided()
	}
	b := ticks + nl + 1
	for b < len(s) && isBlank(s[b]) {
		b++
	}
	if b == len(s) {
		return undecided()
	}
	d.fl.n = ticks
	switch c := s[b]; {
	case c == '<' || c == '[' || c == ']':
		m, more := d.matchMarker(s[b:], true)
		if more {
			return undecided()
		}
		if m != nil && m.whole == nil {
			end := b + len(m.open)
			d.openMarker(m.syn, s[:end], m.open, ticks, 0)
			d.blk.fch = ch
			return i + end, fenceBlock
		}
		if c == '[' && (d.json || d.autoJSON) {
			d.openJSONFence(s[:b], ticks, ch)
			return i + b, fenceBlock
		}
	case c == '{' && (d.json || d.autoJSON):
		d.openJSONFence(s[:b], ticks, ch)
		return i + b, fenceBlock
	}
	return i + ticks, fencePlain
}

// isBlank reports ASCII white space.
func isBlank(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r'
}

const thinkClose = "</think>"

// scanThink releases think text and looks for "</think>" (or the close of
// the span d.thinkEnd names), which may arrive split across pieces (d.think
// bytes of it already seen): the closing tag is visible text too. Control
// tokens are cut from it (stripThink), and only a suffix that may still
// become one is held.
func (d *Detector) scanThink(w string, p int) int {
	thinkClose := d.thinkEnd
	if d.think > 0 {
		rest := thinkClose[d.think:]
		n := min(len(rest), len(w)-p)
		if w[p:p+n] == rest[:n] {
			if n == len(rest) {
				d.emit(w[p : p+n])
				d.think = 0
				return d.thinkClosed(w, p+n)
			}
			d.think += n
			d.emit(w[p:])
			return len(w)
		}
		// "</think>" has no border ('<' occurs once, as in every span's
		// close), so matching restarts
		// at w[p].
		d.think = 0
	}
	end, closed := len(w), false
	if j := strings.Index(w[p:], thinkClose); j >= 0 {
		end, closed = p+j+len(thinkClose), true
	}
	p, held := d.stripThink(w, p, end)
	switch {
	case held:
		return len(w)
	case closed:
		d.emit(w[p:end])
		return d.thinkClosed(w, end)
	}
	for k := min(len(thinkClose)-1, len(w)-p); k > 0; k-- {
		if strings.HasSuffix(w, thinkClose[:k]) {
			d.think = k
			break
		}
	}
	d.emit(w[p:])
	return len(w)
}

// thinkClosed goes on in prose after a span whose close ends at w[end].
// What follows Gemma 4's thought channel starts a line, as the content
// does once the loop took the channel out as reasoning: a call glued to
// its close is read (gemma4bare.go), a fence may open.
func (d *Detector) thinkClosed(w string, end int) int {
	d.st = stText
	if d.thinkEnd != gemmaThoughtClose {
		return end
	}
	d.scanAgain(w[end:], 0)
	d.lead = leadAfter(0, w[end:])
	return len(w)
}

// scanFence releases the code of an ordinary fenced block and looks for its
// closing fence line (or, where harmony is read, its message's end).
func (d *Detector) scanFence(w string, p int) int {
	if d.harmonyOn() {
		return d.scanFenceHarmony(w, p)
	}
	return d.scanFenceCode(w, p)
}

// scanFenceCode is scanFence up to the closing fence line.
func (d *Detector) scanFenceCode(w string, p int) int {
	for i := p; i < len(w); i++ {
		if d.fl.st == flMid {
			j := strings.IndexByte(w[i:], '\n')
			if j < 0 {
				break
			}
			i += j
		}
		if d.fl.step(w[i], 0) == flClosed {
			d.emit(w[p:i]) // the '\n' ending the fence line is prose again
			d.st = stText
			return i
		}
	}
	d.emit(w[p:])
	return len(w)
}
