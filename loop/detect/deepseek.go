package detect

import "strings"

// The deepseek dialect (docs/tool-calls.md), as DeepSeek V3, R1 and
// V3.1 write it with their special tokens (fullwidth ｜ U+FF5C, ▁ U+2581):
// a section holding one or more calls,
//
//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
//	```json
//	{"city": "Paris"}
//	```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
//
// in the V3/R1 form (the type "function", the name on its line, the
// arguments fenced), or the V3.1 form
//
//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
//
// Quirks of real output, as llama.cpp's chat parser and SGLang's detector
// accept them: the section opened by the spellings R1's Qwen distills
// write (<｜tool_calls_begin｜>, <｜tool calls begin｜>,
// <｜tool\_calls\_begin｜>, <｜tool▁calls｜>), always closed by the real
// token; <｜tool▁call▁begin｜> left out inside the section; a call whose
// <｜tool▁call▁end｜> is missing ends at the next call or the section's
// end; a section whose <｜tool▁calls▁end｜> R1 left out, complete when
// the reply ends right after a call's end (endAfterLast); a call
// written without the section (its <｜tool▁calls▁end｜> after
// it is swallowed, see trail.go); white space around every part; the
// arguments fenced or not in either form, repaired leniently.
const (
	dsCallsBegin = "<｜tool▁calls▁begin｜>"
	dsCallsEnd   = "<｜tool▁calls▁end｜>"
	dsCallBegin  = "<｜tool▁call▁begin｜>"
	dsCallEnd    = "<｜tool▁call▁end｜>"
	dsSep        = "<｜tool▁sep｜>"
)

// dsCallsBeginVariants are the other spellings of dsCallsBegin.
var dsCallsBeginVariants = []string{
	"<｜tool_calls_begin｜>", "<｜tool calls begin｜>", "<｜tool\\_calls\\_begin｜>", "<｜tool▁calls｜>",
}

var (
	// synDeepSeek is the section.
	synDeepSeek = syntax{
		format:   DeepSeek,
		close:    dsCallsEnd,
		jsonBody: jsonArgs,
		fail:     kmp(dsCallsEnd),
		end:      endAfterLast(dsCallEnd, false),
		start:    deepSeekStart,
		parse:    parseDeepSeek,
		sniff:    sniffDeepSeek,
	}
	// synDeepSeekCall is one call written without the section.
	synDeepSeekCall = syntax{
		format:   DeepSeek,
		close:    dsCallEnd,
		jsonBody: jsonArgs,
		fail:     kmp(dsCallEnd),
		trail:    dsCallsEnd,
		start:    deepSeekHeadStart,
		parse:    parseDeepSeekCall,
		sniff:    sniffDeepSeek,
	}
)

// deepSeekStart wants a call: <｜tool▁call▁begin｜>, or its head without it.
func deepSeekStart(s string) (res, at int) {
	if s[0] == '<' {
		return tagAt(s, 0, dsCallBegin)
	}
	return deepSeekHeadStart(s)
}

// deepSeekHeadStart wants "function" or a tool name, then <｜tool▁sep｜>:
// "<｜tool▁calls▁begin｜> is DeepSeek's token" stays prose.
func deepSeekHeadStart(s string) (res, at int) {
	return nameThenTag(s, dsSep)
}

func parseDeepSeek(body string) parsed {
	var pr parsed
	for s := trimBlankLeft(body); s != ""; s = trimBlankLeft(s) {
		s = strings.TrimPrefix(s, dsCallBegin)
		// A call ends at its end token, or, when that is missing, where
		// the next call begins.
		one := s
		e, b := strings.Index(s, dsCallEnd), strings.Index(s, dsCallBegin)
		switch {
		case b >= 0 && (e < 0 || b < e):
			one, s = s[:b], s[b:]
		case e >= 0:
			one, s = s[:e], s[e+len(dsCallEnd):]
		default:
			s = ""
		}
		if !pr.add(deepSeekCall(one)) {
			return pr
		}
	}
	if len(pr.calls) == 0 {
		pr.err = malformed("no <｜tool▁call▁begin｜> in the block")
	}
	return pr
}

func parseDeepSeekCall(body string) parsed {
	c, name, err := deepSeekCall(body)
	if err != nil {
		return parsed{name: name, err: err}
	}
	return parsed{calls: []Call{c}}
}

// deepSeekCall reads one call between <｜tool▁call▁begin｜> and
// <｜tool▁call▁end｜>.
func deepSeekCall(s string) (Call, string, error) {
	name, args, ok := deepSeekHead(s)
	if !ok {
		if t := strings.TrimSpace(s); name == "" && isToolName(t) {
			name = t // a name without its separator and arguments
		}
		return Call{}, name, malformed("expected NAME<｜tool▁sep｜>{…} or function<｜tool▁sep｜>NAME, got %s", excerpt(strings.TrimSpace(s)))
	}
	a, err := jsonArguments(args)
	if err != nil {
		return Call{}, name, err
	}
	return Call{Name: name, Arguments: a}, name, nil
}

// deepSeekHead splits a call into its name and arguments text. The V3
// form has the type "function" before the separator and the name on the
// line after it; the V3.1 form has the name before the separator and the
// arguments right after it. ok is false when no name can be read.
func deepSeekHead(s string) (name, args string, ok bool) {
	i := strings.Index(s, dsSep)
	if i < 0 {
		return "", "", false
	}
	head, rest := strings.TrimSpace(s[:i]), s[i+len(dsSep):]
	if r := trimBlankLeft(rest); head == "function" && r != "" && isNameByte(r[0]) {
		name, args = r, ""
		if nl := strings.IndexAny(r, "\n`"); nl >= 0 {
			name, args = r[:nl], r[nl:]
		}
		name = strings.TrimSpace(name)
		return name, args, name != ""
	}
	return head, rest, head != ""
}

func sniffDeepSeek(body string) parsed {
	s := trimBlankLeft(body)
	s = strings.TrimPrefix(s, dsCallBegin)
	if e := strings.Index(s, dsCallEnd); e >= 0 {
		s = s[:e]
	}
	name, _, _ := deepSeekHead(s)
	return parsed{name: name}
}
