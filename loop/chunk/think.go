package chunk

import (
	"strings"

	"github.com/valyala/fastjson"
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// Where a reply stands for [ThinkSplit].
const (
	// thinkStart: nothing but blanks and a prefix of "<think>" yet.
	thinkStart = iota
	// thinkReasoning: before the first "</think>": reasoning.
	thinkReasoning
	// thinkContent: after it: content.
	thinkContent
	// thinkAsIs: the reply opened <think> itself, or the upstream splits
	// reasoning out on its own: content stays content, as without
	// implicit_think.
	thinkAsIs
)

// ThinkSplit separates the implicit reasoning of one reply (docs/tool-calls.md,
// upstreams[].implicit_think). Chat templates of Qwen3 thinking models,
// DeepSeek-R1 distills and QwQ end the prompt with "<think>\n", so the
// reply writes its reasoning straight away and only the closing tag:
//
//	The user wants the weather, so I call get_weather.
//	</think>
//
//	<tool_call>…</tool_call>
//
// Everything before the first "</think>" is reasoning, the tag itself is
// dropped, and so are the newlines right after it (the templates
// lstrip('\n') the content too); the rest is content. As vLLM's
// deepseek_r1 and qwen3 parsers do when thinking is on, a reply that never
// writes "</think>" is all reasoning: it was cut off mid-thought, and a
// stream cannot take back text it already sent as reasoning. The tag may
// arrive split at any byte; only bytes that could still be its start are
// held back. A reply that opens "<think>" itself is left as it is (the
// detectors show it and run nothing inside), and so is one whose upstream
// already sends reasoning_content: that server has a reasoning parser.
type ThinkSplit struct {
	// Ends are openings of tool-call blocks, each starting with its only
	// '<', that end the reasoning too, where they start: DeepSeek V4 sometimes omits "</think>" before its
	// DSML calls (docs/tool-calls.md, "Implicit <think>"). The block is content, and runs.
	Ends []string
	st   int
	// held are bytes that may still be the start of "<think>" (thinkStart)
	// or of "</think>" (thinkReasoning).
	held string
	// trim drops the newlines right after "</think>".
	trim bool
	// written is the reply as written up to the end of its "</think>":
	// the reasoning the next round's history gives back.
	written strings.Builder
}

// Feed takes the next piece of the reply's content and returns what of it
// is reasoning and what is content.
func (t *ThinkSplit) Feed(s string) (reasoning, content string) {
	switch t.st {
	case thinkAsIs:
		return "", s
	case thinkContent:
		return "", t.trimLead(s)
	case thinkStart:
		s = t.held + s
		t.held = ""
		w := strings.TrimLeft(s, " \t\r\n")
		switch {
		case strings.HasPrefix(w, thinkOpen):
			t.st = thinkAsIs
			return "", s
		case len(w) < len(thinkOpen) && strings.HasPrefix(thinkOpen, w):
			t.held = strings.Clone(s) // blanks, or a start of "<think>": undecided; s is only the caller's until it returns
			return "", ""
		}
		t.st = thinkReasoning
	default:
		s = t.held + s
		t.held = ""
	}
	if i := strings.Index(s, thinkClose); i >= 0 && t.endAt(s[:i]) < 0 {
		t.written.WriteString(s[:i+len(thinkClose)])
		t.st, t.trim = thinkContent, true
		return s[:i], t.trimLead(s[i+len(thinkClose):])
	}
	if i := t.endAt(s); i >= 0 {
		t.written.WriteString(s[:i])
		t.st = thinkContent
		return s[:i], s[i:]
	}
	// Hold the end of s that "</think>" or an end could still continue.
	// Each starts with its only '<', so that end starts at s's last '<'.
	if j := strings.LastIndexByte(s, '<'); j >= 0 && t.mayStart(s[j:]) {
		t.held = strings.Clone(s[j:]) // kept past the call: a copy
		s = s[:j]
	}
	t.written.WriteString(s)
	return s, ""
}

// mayStart reports whether tail is a proper prefix of "</think>" or of
// one of Ends.
func (t *ThinkSplit) mayStart(tail string) bool {
	if len(tail) < len(thinkClose) && strings.HasPrefix(thinkClose, tail) {
		return true
	}
	for _, e := range t.Ends {
		if len(tail) < len(e) && strings.HasPrefix(e, tail) {
			return true
		}
	}
	return false
}

// endAt returns where the first of Ends starts in s, or -1. Each starts
// with '<', so only the '<' of s are tried.
func (t *ThinkSplit) endAt(s string) int {
	if len(t.Ends) == 0 {
		return -1
	}
	for i := strings.IndexByte(s, '<'); i >= 0; {
		for _, e := range t.Ends {
			if strings.HasPrefix(s[i:], e) {
				return i
			}
		}
		j := strings.IndexByte(s[i+1:], '<')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return -1
}

// End is called once the reply is over and returns the reasoning still
// held back.
func (t *ThinkSplit) End() (reasoning string) {
	if t.st != thinkStart && t.st != thinkReasoning {
		return ""
	}
	r := t.held
	t.held = ""
	t.written.WriteString(r)
	return r
}

// UpstreamSplits is told that the upstream sent a reasoning field of its
// own: before any content, that means it parses reasoning itself, and its
// content is content.
func (t *ThinkSplit) UpstreamSplits() {
	if t.st == thinkStart && t.held == "" {
		t.st = thinkAsIs
	}
}

// trimLead drops the newlines that follow "</think>".
func (t *ThinkSplit) trimLead(s string) string {
	if !t.trim {
		return s
	}
	s = strings.TrimLeft(s, "\r\n")
	if s != "" {
		t.trim = false
	}
	return s
}

// Thought returns the reply as written up to and including its
// "</think>" (all of it read so far when there was none), or "" when the
// reply had no implicit reasoning.
func (t *ThinkSplit) Thought() string {
	if t.st == thinkAsIs {
		return ""
	}
	return t.written.String()
}

// HasReasoning reports whether delta carries a reasoning field of its
// own, non-empty. It reads raw JSON: asking fastjson for the type or value
// of a string unescapes it in place, and these fields pass through as
// they came.
func HasReasoning(delta *fastjson.Value) bool {
	var raw []byte
	for _, k := range [...]string{"reasoning_content", "reasoning"} {
		if v := delta.Get(k); v != nil {
			raw = v.MarshalTo(raw[:0])
			if s := string(raw); s != "null" && s != `""` {
				return true
			}
		}
	}
	return false
}

// ThinkAnswer applies implicit_think to a whole chat.completion (a client
// that does not stream, in a turn without server tools): in each choice,
// the message's content up to its first </think> becomes reasoning_content,
// as [ThinkSplit] does for a stream. A body it cannot read, or whose
// upstream already split reasoning out, is returned as it is.
func ThinkAnswer(body []byte) []byte {
	var p fastjson.Parser
	v, err := p.ParseBytes(body)
	if err != nil {
		return body
	}
	var a fastjson.Arena
	changed := false
	for _, c := range v.GetArray("choices") {
		msg := c.Get("message")
		content := msg.Get("content")
		if content == nil || content.Type() != fastjson.TypeString || HasReasoning(msg) {
			continue
		}
		var th ThinkSplit
		r, rest := th.Feed(string(content.GetStringBytes()))
		r += th.End()
		if th.st == thinkAsIs {
			msg.Set("content", RawValue(&a, string(AppendJSONString(nil, rest))))
			continue
		}
		if rest == "" {
			msg.Set("content", a.NewNull())
		} else {
			msg.Set("content", RawValue(&a, string(AppendJSONString(nil, rest))))
		}
		msg.Set("reasoning_content", RawValue(&a, string(AppendJSONString(nil, r))))
		changed = true
	}
	if !changed {
		return body
	}
	return v.MarshalTo(nil)
}
