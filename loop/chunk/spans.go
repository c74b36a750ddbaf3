package chunk

import "strings"

// A reasoning span is thinking a model writes in its content between
// tokens of its own, where no server reasoning parser took it out:
// Gemma 4's thought channel, <|channel>thought…<channel|>, and Seed-OSS's
// <seed:think>…</seed:think>. It goes out as reasoning (docs/tool-calls.md,
// rule 7): nothing in it reaches the content, and so nothing in it runs.
type span struct {
	open, close string
	// name is the channel name that opens Gemma's span ("thought\n"), not
	// part of the reasoning.
	name string
}

var spans = []span{
	{open: "<|channel>", close: "<channel|>", name: "thought"},
	{open: "<seed:think>", close: "</seed:think>"},
}

// SpanSplit moves the reasoning spans of one reply's content out to
// reasoning. The tokens themselves go nowhere. A span left open at the end
// of the reply is reasoning to its end. Bytes that may still be the start
// of an opening (outside a span) or of the close (inside one) are held
// back until the next piece tells.
type SpanSplit struct {
	in    int    // the span being read, index+1 in spans; 0: outside
	held  string // a suffix that may still open or close a span
	named bool   // inside a span with a name: the name is behind
}

// Feed consumes the next piece of content and returns what of it is
// reasoning and what is content.
func (p *SpanSplit) Feed(s string) (reasoning, content string) {
	if p.in == 0 && p.held == "" && strings.IndexByte(s, '<') < 0 {
		return "", s // the common case: prose without a tag
	}
	s = p.held + s
	p.held = ""
	var r, c strings.Builder
	for s != "" {
		if p.in == 0 {
			i, sp, closing := tokenAt(s)
			switch {
			case sp < 0:
				keep := heldToken(s[i:])
				c.WriteString(s[:len(s)-keep])
				p.held = strings.Clone(s[len(s)-keep:])
				s = ""
			case closing:
				// A stray close (llama.cpp's test-chat.cpp: "…What's
				// up?<channel|>") is a token, not content.
				c.WriteString(s[:i])
				s = s[i+len(spans[sp].close):]
			default:
				c.WriteString(s[:i])
				s = s[i+len(spans[sp].open):]
				p.in, p.named = sp+1, spans[sp].name != ""
			}
			continue
		}
		sp := spans[p.in-1]
		if p.named {
			if rest, ok := strings.CutPrefix(s, sp.open); ok {
				s = rest // the opening token twice: "<|channel><|channel>thought"
				continue
			}
			if len(s) < len(sp.open) && strings.HasPrefix(sp.open, s) {
				p.held = strings.Clone(s)
				break
			}
			rest, more := cutName(s, sp.name)
			if more {
				p.held = strings.Clone(s)
				break
			}
			s, p.named = rest, false
			continue
		}
		if j := strings.Index(s, sp.close); j >= 0 {
			r.WriteString(s[:j])
			s, p.in = s[j+len(sp.close):], 0
			continue
		}
		keep := heldSuffix(s, sp.close)
		r.WriteString(s[:len(s)-keep])
		p.held = strings.Clone(s[len(s)-keep:])
		break
	}
	return r.String(), c.String()
}

// End returns what was held back once the reply is over: inside a span it
// is reasoning, outside one content.
func (p *SpanSplit) End() (reasoning, content string) {
	h := p.held
	p.held = ""
	if p.in != 0 {
		if p.named {
			h, _ = cutName(h, spans[p.in-1].name)
		}
		return h, ""
	}
	return "", h
}

// tokenAt returns where the first span token in s is, which span's, and
// whether it is the close; or -1 as the span and where the bytes that may
// start one begin (len(s) when none may).
func tokenAt(s string) (at, sp int, closing bool) {
	for i := strings.IndexByte(s, '<'); i >= 0; {
		for k := range spans {
			if strings.HasPrefix(s[i:], spans[k].open) {
				return i, k, false
			}
			if strings.HasPrefix(s[i:], spans[k].close) {
				return i, k, true
			}
		}
		j := strings.IndexByte(s[i+1:], '<')
		if j < 0 {
			return i, -1, false
		}
		i += 1 + j
	}
	return len(s), -1, false
}

// heldToken returns how many bytes at the end of s, which starts at its
// last '<' (or is empty), may still become a span's token.
func heldToken(s string) int {
	for k := range spans {
		for _, tok := range []string{spans[k].open, spans[k].close} {
			if len(s) < len(tok) && strings.HasPrefix(tok, s) {
				return len(s)
			}
		}
	}
	return 0
}

// heldSuffix returns the length of the longest end of s that close could
// still continue.
func heldSuffix(s, close string) int {
	for k := min(len(close)-1, len(s)); k > 0; k-- {
		if strings.HasSuffix(s, close[:k]) {
			return k
		}
	}
	return 0
}

// cutName cuts a channel's name and the line break after it off s, when s
// starts with them; more says s is too short to tell.
func cutName(s, name string) (rest string, more bool) {
	if len(s) <= len(name) {
		return s, strings.HasPrefix(name, s)
	}
	rest, ok := strings.CutPrefix(s, name)
	if !ok {
		return s, false
	}
	rest = strings.TrimPrefix(rest, "\r")
	return strings.TrimPrefix(rest, "\n"), false
}
