package detect

import "strings"

// Control tokens that are cut from the text wherever they are read and
// never open a call (markers with strip set): a model's channel tokens
// that a server with the right parser would have taken out. Kimi K3's
// response channel (<|open|>response<|sep|> … <|close|>response<|sep|>)
// and its message's close, as vLLM's kimi_k3 parser strips them, are cut
// in every mode: nothing else writes them. Harmony's <|end|>, <|return|>,
// <|call|>, <|message|> and <|constrain|> are cut where harmony is read
// (harmonyOn); elsewhere "<|end|>" in prose stays prose. Inside a <think>
// span they are cut too (with harmony's <|start|> and <|channel|> and the
// name after each), so that reasoning never carries them either, and so
// they are from what is still held when the stream ends (a fence line
// never finished).

// stripOn reports whether the control tokens of dialect f are cut here.
func (d *Detector) stripOn(f Format) bool {
	return f != Harmony || d.harmonyOn()
}

// atStrip cuts the control token m found at w[i], after the prose w[p:i].
// ok false says it is prose here.
func (d *Detector) atStrip(m *marker, w string, p, i int) (next int, ok bool) {
	if !d.stripOn(m.strip) {
		return 0, false
	}
	d.emit(w[p:i])
	return i + len(m.open), true
}

// cutToken is a control token cut from a <think> span, or from what is
// still held at the end of the stream.
type cutToken struct {
	tok   string
	of    Format
	named bool // the name after it goes too (<|start|>assistant)
}

// cutTokens are every strip marker's token, and the openings of a
// harmony header. All start with "<|".
var cutTokens = []cutToken{{tok: hmStart, of: Harmony, named: true}, {tok: hmChannel, of: Harmony, named: true}}

func init() {
	for i := range markers {
		if m := &markers[i]; m.strip != "" {
			cutTokens = append(cutTokens, cutToken{tok: m.open, of: m.strip})
		}
	}
}

// stripThink cuts the control tokens from the think text w[p:end], where
// end is len(w) unless the span's close ends at end. It releases the text
// before the last token it cut and returns where the rest starts; held
// says it kept a token that may go on in the next piece (from its first
// byte on), and the window is done.
func (d *Detector) stripThink(w string, p, end int) (q int, held bool) {
	for i := p; ; {
		j := strings.Index(w[i:end], "<|")
		if j < 0 {
			break
		}
		i += j
		n, res := d.cutTokenAt(w[i:end])
		switch {
		case res == startOK:
			d.emit(w[p:i])
			p, i = i+n, i+n
			continue
		case res == startMore && end == len(w):
			d.emit(w[p:i])
			d.holdFrom(w, i)
			return len(w), true
		}
		i += 2
	}
	if end == len(w) && end > p && w[end-1] == '<' {
		d.emit(w[p : end-1]) // a '<' that may start "<|end|>"
		d.holdFrom(w, end-1)
		return len(w), true
	}
	return p, false
}

// cutTokenAt reads the control token s starts with: startOK and its
// length (with its name), startMore when s may still become one, or
// startNo.
func (d *Detector) cutTokenAt(s string) (n, res int) {
	res = startNo
	for _, t := range cutTokens {
		switch {
		case !d.stripOn(t.of):
		case strings.HasPrefix(s, t.tok):
			if !t.named {
				return len(t.tok), startOK
			}
			j, r := nameEnd(s[len(t.tok):])
			if r == startMore {
				return 0, startMore
			}
			return len(t.tok) + j, startOK
		case len(s) < len(t.tok) && strings.HasPrefix(t.tok, s):
			res = startMore
		}
	}
	return 0, res
}

// emitHeld releases what prose, a fence or a <think> span held at the end
// of the stream, as written less the control tokens in it (cutTokens): a
// fence line held undecided ("```<|message|>") may hold one.
func (d *Detector) emitHeld() {
	s := string(d.hold)
	d.hold = d.hold[:0]
	for {
		j := strings.Index(s, "<|")
		if j < 0 {
			break
		}
		if n, res := d.cutTokenAt(s[j:]); res == startOK {
			d.emit(s[:j])
			s = s[j+n:]
			continue
		}
		d.emit(s[:j+2])
		s = s[j+2:]
	}
	d.emit(s)
}
