package detect

import (
	"strings"

	"github.com/toolstream/toolstream/toolhost/clip"
)

// The kimi_k2 dialect (docs/tool-calls.md), as Kimi K2 writes it with
// its special tokens: a section holding one or more calls, each named by
// an id "functions.NAME:IDX",
//
//	<|tool_calls_section_begin|>
//	<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>
//	<|tool_calls_section_end|>
//
// Quirks of real output, as vLLM's and SGLang's parsers accept them: the
// singular <|tool_call_section_begin|> / <|tool_call_section_end|> that
// some checkpoints write, in any pairing (the section closes at the
// "_section_end|>" both share); an id without "functions." or without
// ":IDX"; white space around every part; a call whose <|tool_call_end|>
// is missing ends at the next call or the section's end; a call written
// without the section (its <|tool_calls_section_end|> after it is
// swallowed, see trail.go). Arguments are JSON, repaired leniently.
const (
	kimiSectionBegin         = "<|tool_calls_section_begin|>"
	kimiSectionBeginSingular = "<|tool_call_section_begin|>"
	kimiSectionEnd           = "<|tool_calls_section_end|>"
	kimiSectionEndShared     = "_section_end|>"
	kimiCallBegin            = "<|tool_call_begin|>"
	kimiArgBegin             = "<|tool_call_argument_begin|>"
	kimiCallEnd              = "<|tool_call_end|>"
)

var (
	// synKimi is the section.
	synKimi = syntax{
		format:   KimiK2,
		close:    kimiSectionEndShared,
		jsonBody: jsonArgs,
		fail:     kmp(kimiSectionEndShared),
		// A reply that ends right after a call's end is complete: the
		// section's end was left out or stripped as a stop token.
		end:   endAfterLast(kimiCallEnd, false),
		start: func(s string) (int, int) { return tagAt(s, 0, kimiCallBegin) },
		parse: parseKimi,
		sniff: sniffKimi,
	}
	// synKimiCall is one call written without the section.
	synKimiCall = syntax{
		format:   KimiK2,
		close:    kimiCallEnd,
		jsonBody: jsonArgs,
		fail:     kmp(kimiCallEnd),
		trail:    kimiSectionEnd,
		start:    kimiIDStart,
		parse:    func(body string) parsed { return parseKimiCalls(kimiCallBegin + body) },
		sniff:    func(body string) parsed { return sniffKimi(kimiCallBegin + body) },
	}
)

// kimiIDStart wants a call id ("functions.get_weather:0"), then
// <|tool_call_argument_begin|>.
func kimiIDStart(s string) (res, at int) {
	j := 0
	for j < len(s) && j < maxToolName && (isNameByte(s[j]) || s[j] == ':') {
		j++
	}
	switch {
	case j == maxToolName:
		return startNo, j
	case j == len(s):
		return startMore, 0
	case j == 0:
		return startNo, 0
	}
	return tagAt(s, skipBlanks(s, j), kimiArgBegin)
}

func parseKimi(body string) parsed {
	// The section closed at "_section_end|>": what is left of its end
	// token is the body's tail.
	if strings.HasSuffix(body, kimiCallEnd) { // left open (endAfterLast)
		return parseKimiCalls(body)
	}
	s, ok := strings.CutSuffix(body, "<|tool_calls")
	if !ok {
		if s, ok = strings.CutSuffix(body, "<|tool_call"); !ok {
			return parsed{name: sniffKimi(body).name, err: malformed("the section closed at %s, not at <|tool_calls_section_end|>", excerpt(clip.Suffix(body, 20)+kimiSectionEndShared))}
		}
	}
	return parseKimiCalls(s)
}

// parseKimiCalls reads calls, each opened by <|tool_call_begin|>.
func parseKimiCalls(body string) parsed {
	var pr parsed
	for s := trimBlankLeft(body); s != ""; s = trimBlankLeft(s) {
		rest, ok := strings.CutPrefix(s, kimiCallBegin)
		if !ok {
			pr.err = malformed("expected <|tool_call_begin|>, got %s", excerpt(s))
			return pr
		}
		i := strings.Index(rest, kimiArgBegin)
		if i < 0 || strings.Contains(rest[:i], kimiCallBegin) || strings.Contains(rest[:i], kimiCallEnd) {
			if pr.name == "" { // a call id without the token after it
				pr.name = kimiName(kimiIDAt(trimBlankLeft(rest)))
			}
			pr.err = malformed("expected functions.NAME:IDX<|tool_call_argument_begin|>, got %s", excerpt(rest))
			return pr
		}
		name := kimiName(rest[:i])
		if pr.name == "" {
			pr.name = name
		}
		if name == "" {
			pr.err = malformed("the call id %s names no tool", excerpt(strings.TrimSpace(rest[:i])))
			return pr
		}
		rest = rest[i+len(kimiArgBegin):]
		// The arguments end at <|tool_call_end|>, or, when that is
		// missing, where the next call begins.
		args := rest
		e, b := strings.Index(rest, kimiCallEnd), strings.Index(rest, kimiCallBegin)
		switch {
		case b >= 0 && (e < 0 || b < e):
			args, s = rest[:b], rest[b:]
		case e >= 0:
			args, s = rest[:e], rest[e+len(kimiCallEnd):]
		default:
			s = ""
		}
		a, err := jsonArguments(args)
		if err != nil {
			pr.err = err
			return pr
		}
		pr.calls = append(pr.calls, Call{Name: name, Arguments: a})
	}
	if len(pr.calls) == 0 {
		pr.err = malformed("no <|tool_call_begin|> in the section")
	}
	return pr
}

// kimiName reads the tool name from a call id: "functions.NAME:IDX", the
// prefix and the index each optional.
func kimiName(id string) string {
	id = strings.TrimSpace(id)
	id = strings.TrimPrefix(id, "functions.")
	if k := strings.LastIndexByte(id, ':'); k >= 0 && k+1 < len(id) && strings.Trim(id[k+1:], "0123456789") == "" {
		id = id[:k]
	}
	return strings.TrimSpace(id)
}

// kimiIDAt returns the call id s starts with: its run of name bytes and
// ':' ("functions.search:0" in "functions.search:0{…}").
func kimiIDAt(s string) string {
	i := 0
	for i < len(s) && (isNameByte(s[i]) || s[i] == ':') {
		i++
	}
	return s[:i]
}

func sniffKimi(body string) parsed {
	_, s, ok := strings.Cut(body, kimiCallBegin)
	if !ok {
		return parsed{}
	}
	i := strings.Index(s, kimiArgBegin)
	if i < 0 {
		return parsed{}
	}
	return parsed{name: kimiName(s[:i])}
}
