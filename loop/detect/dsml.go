package detect

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// The dsml dialect (docs/tool-calls.md), DeepSeek V3.2's and V4's markup
// language: a wrapper holding one or more invokes, one parameter tag per
// argument,
//
//	<｜DSML｜function_calls>
//	<｜DSML｜invoke name="get_weather">
//	<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
//	<｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
//	</｜DSML｜invoke>
//	</｜DSML｜function_calls>
//
// (V4 names the wrapper tool_calls, V4.1 " calls" with a space before the
// name, as its invoke and parameter tags). A string="true" value is raw
// text, a string="false" one JSON; an invoke may hold one JSON object
// instead of parameter tags (SGLang's "direct JSON" form). Quirks of real
// output, as vLLM's deepseekv32 and deepseekv4 parsers and SGLang's
// detectors (after its DSML fuzz report, sgl-project/sglang#40236) accept
// them: invokes without the
// wrapper; V4 writing V3.2's function_calls wrapper and the reverse;
// self-closing invokes (<｜DSML｜invoke name="get_time"/>); curly quotes
// around attribute values; the bars written ‖, ｜｜ (also with a space
// before the tag name), || or " | "; a missing </｜DSML｜invoke> before the
// wrapper's close; and a wrapper whose close never comes before the reply
// ends: its complete invokes are calls and an invoke cut off is a
// PARSE_ERROR (endAsItStands).
//
// Every tag is read by dsmlTag whatever its bars, so one pair of syntaxes
// serves every spelling: the wrapper ends at "calls>", the shared tail of
// the wrappers' closes in every spelling, and a bare invoke at "invoke>".
const (
	dsmlWrapClose   = "calls>"
	dsmlInvokeClose = "invoke>"
)

// dsmlPrefixes are the openings of a DSML tag before its name, in every
// spelling models write: the real tokens (fullwidth ｜ U+FF5C), then the
// bars of leaked and re-tokenised output.
var dsmlPrefixes = []string{
	"<｜DSML｜", "<｜DSML｜ ", "<‖DSML‖", "<｜｜DSML｜｜", "<｜｜DSML｜｜ ", "<||DSML||", "< | DSML | ",
}

var (
	// synDSML is the wrapper.
	synDSML = syntax{
		format: DSML,
		close:  dsmlWrapClose,
		fail:   kmp(dsmlWrapClose),
		end:    endAsItStands,
		start:  dsmlWrapStart,
		parse:  parseDSML,
		sniff:  sniffDSML,
	}
	// synDSMLInvoke is an invoke written without the wrapper; its opening
	// marker ends at the tag name, so the body starts at its attributes.
	synDSMLInvoke = syntax{
		format: DSML,
		close:  dsmlInvokeClose,
		fail:   kmp(dsmlInvokeClose),
		end:    endAsItStands,
		start:  dsmlInvokeStart,
		parse:  func(body string) parsed { return parseDSML(dsmlPrefixes[0] + "invoke" + body) },
		sniff:  func(body string) parsed { return sniffDSML(dsmlPrefixes[0] + "invoke" + body) },
	}
)

// dsmlMarkers are the opening markers of the dialect: each wrapper and a
// bare invoke, in every spelling of dsmlPrefixes.
func dsmlMarkers() []marker {
	var ms []marker
	for _, p := range dsmlPrefixes {
		ms = append(ms,
			marker{open: p + "function_calls>", syn: &synDSML, fence: true},
			marker{open: p + "tool_calls>", syn: &synDSML, fence: true},
			marker{open: p + "calls>", syn: &synDSML, fence: true},
			marker{open: p + "invoke", syn: &synDSMLInvoke, fence: true})
	}
	return ms
}

// dsmlWrapStart wants an invoke tag: "<｜DSML｜function_calls> is the
// wrapper" stays prose.
func dsmlWrapStart(s string) (res, at int) {
	res = startNo
	for _, p := range dsmlPrefixes {
		switch prefixRes(s, p+"invoke") {
		case startOK:
			return startOK, 0
		case startMore:
			res = startMore
		}
	}
	return res, 0
}

// dsmlInvokeStart wants the name attribute first, as every DSML invoke
// has it: "the <｜DSML｜invoke tag" stays prose. A self-closing invoke is
// the whole block: it ends at its "/>", not at a later invoke's close.
func dsmlInvokeStart(s string) (res, at int) {
	if prefixRes(s, "name") == startNo {
		return startNo, 0
	}
	res, at = invokeStart(s)
	if res == startOK {
		if gt := strings.IndexByte(s, '>'); gt > 0 && s[gt-1] == '/' {
			return startDone, gt + 1
		}
	}
	return res, at
}

// dsmlTag reads the DSML tag at the start of s up to the end of its name
// ("</｜DSML｜parameter", "<‖DSML‖ invoke"): its name, whether it is a
// closing tag, and what follows the name. ok is false when s does not
// start with one. A tag whose name the block's close took ("</｜DSML｜"
// at the body's end) has the name "".
func dsmlTag(s string) (name string, closing bool, rest string, ok bool) {
	if !strings.HasPrefix(s, "<") {
		return "", false, "", false
	}
	s = s[1:]
	if closing = strings.HasPrefix(s, "/"); closing {
		s = s[1:]
	}
	s, ok = dsmlBars(s)
	if !ok {
		return "", false, "", false
	}
	if s, ok = strings.CutPrefix(s, "DSML"); !ok {
		return "", false, "", false
	}
	if s, ok = dsmlBars(s); !ok {
		return "", false, "", false
	}
	s = strings.TrimLeft(s, " ")
	j := 0
	for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] == '_') {
		j++
	}
	return s[:j], closing, s[j:], true
}

// dsmlBars skips the bars around "DSML" (｜, ‖, | and spaces); ok is false
// when there is no bar.
func dsmlBars(s string) (string, bool) {
	bar := false
	for {
		switch {
		case strings.HasPrefix(s, "｜"):
			s, bar = s[len("｜"):], true
		case strings.HasPrefix(s, "‖"):
			s, bar = s[len("‖"):], true
		case strings.HasPrefix(s, "|"):
			s, bar = s[1:], true
		case strings.HasPrefix(s, " "):
			s = s[1:]
		default:
			return s, bar
		}
	}
}

// errDSMLCut is an invoke the end of the reply cut off inside a wrapper
// left open: the complete invokes before it are calls, it is not.
var errDSMLCut = ErrUnclosed

func parseDSML(body string) parsed {
	var pr parsed
	// A body its close ended has that close's head at its end; one
	// without it is a wrapper the end of the reply left open, where an
	// invoke may be cut off.
	open := !dsmlClosed(body)
	s := body
	for {
		s = trimBlankLeft(s)
		if s == "" {
			break
		}
		name, closing, rest, ok := dsmlTag(s)
		switch {
		case !ok:
			// Prose between invokes is skipped, as vLLM's and SGLang's
			// parsers skip it.
			i := strings.IndexByte(s[1:], '<')
			if i < 0 {
				s = ""
			} else {
				s = s[1+i:]
			}
			continue
		case closing && dsmlWrapperName(name):
			// The wrapper's close (or what its syntax's close left of it):
			// nothing after it is the block's.
			s = ""
			continue
		case closing:
			// A stray close between invokes is skipped.
			_, s, _ = strings.Cut(rest, ">")
			continue
		case name != "invoke":
			pr.err = malformed(`expected <｜DSML｜invoke name="…">, got %s`, excerpt(s))
			return pr
		}
		var c Call
		var err error
		c, s, err = dsmlInvoke(rest)
		switch {
		case errors.Is(err, errDSMLCut) && !open:
			err = malformed(`in <｜DSML｜invoke name=%q>: an unclosed tag`, c.Name)
			pr.add(c, c.Name, err)
			return pr
		case errors.Is(err, errDSMLCut):
			// Cut off by the end of the reply: a PARSE_ERROR beside the
			// complete invokes.
			if pr.name == "" {
				pr.name = c.Name
			}
			pr.calls = append(pr.calls, Call{Name: c.Name, Err: err})
			return pr
		case !pr.add(c, c.Name, err):
			return pr
		}
	}
	if len(pr.calls) == 0 {
		pr.err = malformed(`no <｜DSML｜invoke name="…"> in the block`)
	}
	return pr
}

// dsmlInvoke reads one invoke from its attributes on (s follows the tag
// name) to its close, and returns what follows it. The invoke ends at its
// close, at the next invoke or at the wrapper's close (a missing
// </｜DSML｜invoke> is tolerated there); the end of s inside it is
// errDSMLCut.
func dsmlInvoke(s string) (Call, string, error) {
	attrs, self, rest, ok := dsmlAttrs(s)
	name := attrs["name"]
	switch {
	case !ok:
		return Call{Name: name}, "", errDSMLCut
	case strings.TrimSpace(name) == "":
		return Call{}, "", malformed(`expected <｜DSML｜invoke name="…">, got %s`, excerpt("<｜DSML｜invoke"+s))
	case self:
		return Call{Name: name, Arguments: []byte("{}")}, rest, nil
	}
	if r := trimBlankLeft(rest); strings.HasPrefix(r, "{") {
		return dsmlJSONInvoke(name, r)
	}
	var args textArgs
	for s = trimBlankLeft(rest); ; s = trimBlankLeft(s) {
		if s == "" {
			return Call{Name: name}, "", errDSMLCut
		}
		tag, closing, after, ok := dsmlTag(s)
		switch {
		case !ok:
			return Call{Name: name}, "", malformed(`in <｜DSML｜invoke name=%q>: expected <｜DSML｜parameter name="…"> or </｜DSML｜invoke>, got %s`, name, excerpt(s))
		case closing && (tag == "invoke" || tag == ""):
			_, after, _ = strings.Cut(after, ">")
			return Call{Name: name, Arguments: args.json()}, after, nil
		case closing || tag == "invoke":
			// The wrapper's close, or the next invoke: this one ends here.
			return Call{Name: name, Arguments: args.json()}, s, nil
		case tag != "parameter":
			return Call{Name: name}, "", malformed(`in <｜DSML｜invoke name=%q>: expected <｜DSML｜parameter name="…">, got %s`, name, excerpt(s))
		}
		var err error
		if s, err = dsmlParam(&args, name, after); err != nil {
			return Call{Name: name}, "", err
		}
	}
}

// dsmlJSONInvoke reads an invoke whose body is one JSON object (s starts
// at its '{'), up to the invoke's close or the wrapper's.
func dsmlJSONInvoke(name, s string) (Call, string, error) {
	for i := 0; ; {
		j := strings.Index(s[i:], "</")
		if j < 0 {
			return Call{Name: name}, "", errDSMLCut
		}
		i += j
		if tag, closing, after, ok := dsmlTag(s[i:]); ok && closing && (tag == "invoke" || dsmlWrapperName(tag)) {
			a, err := jsonArguments(s[:i])
			if err != nil {
				return Call{Name: name}, "", err
			}
			if tag == "invoke" || tag == "" {
				_, after, _ = strings.Cut(after, ">")
				return Call{Name: name, Arguments: a}, after, nil
			}
			return Call{Name: name, Arguments: a}, s[i:], nil
		}
		i += 2
	}
}

// dsmlParam reads one parameter from its attributes on into args and
// returns what follows its close.
func dsmlParam(args *textArgs, invoke, s string) (string, error) {
	attrs, self, rest, ok := dsmlAttrs(s)
	key := attrs["name"]
	switch {
	case !ok:
		return "", errDSMLCut
	case key == "":
		return "", malformed(`in <｜DSML｜invoke name=%q>: a parameter without a name`, invoke)
	case self:
		return rest, args.add(key, "")
	}
	end, after := dsmlParamEnd(rest)
	if end < 0 {
		return "", errDSMLCut
	}
	v := trimNewlines(rest[:end])
	if attrs["string"] == "false" {
		// JSON, repaired leniently; a value that is not JSON stays the
		// text it is and the tool's schema coerces it, as vLLM does.
		if raw, err := lenientJSON(strings.TrimSpace(v)); err == nil {
			var buf bytes.Buffer
			if json.Compact(&buf, raw) == nil {
				return after, args.addValue(key, buf.Bytes())
			}
		}
	}
	return after, args.add(key, v)
}

// dsmlParamEnd finds the close of a parameter value in s: the index where
// its </｜DSML｜parameter> starts (-1 when there is none), and what follows
// it.
func dsmlParamEnd(s string) (int, string) {
	for i := 0; ; {
		j := strings.Index(s[i:], "</")
		if j < 0 {
			return -1, ""
		}
		i += j
		tag, closing, after, ok := dsmlTag(s[i:])
		if ok && closing && tag == "parameter" {
			if k := strings.IndexByte(after, '>'); k >= 0 && strings.TrimSpace(after[:k]) == "" {
				return i, after[k+1:]
			}
		}
		i += 2
	}
}

// dsmlAttrs reads a tag's attributes up to its '>' ("/>" when self is
// true) and returns them and what follows. Values may be quoted with ", ',
// curly quotes (“…”, ‘…’) or not at all. ok is false when s ends first.
func dsmlAttrs(s string) (attrs map[string]string, self bool, rest string, ok bool) {
	attrs = map[string]string{}
	for {
		s = trimBlankLeft(s)
		switch {
		case s == "":
			return attrs, false, "", false
		case s[0] == '>':
			return attrs, false, s[1:], true
		case strings.HasPrefix(s, "/>"):
			return attrs, true, s[2:], true
		}
		j := 0
		for j < len(s) && !isBlank(s[j]) && strings.IndexByte("=/>", s[j]) < 0 {
			j++
		}
		key := s[:j]
		s = trimBlankLeft(s[j:])
		if j == 0 && s != "" {
			s = s[1:] // a stray '/' or '=': skipped
			continue
		}
		v := ""
		if r, eq := strings.CutPrefix(s, "="); eq {
			var vok bool
			if v, s, vok = dsmlValue(trimBlankLeft(r)); !vok {
				return attrs, false, "", false
			}
		}
		if _, dup := attrs[key]; !dup {
			attrs[key] = v
		}
	}
}

// dsmlQuotes pairs each opening quote with its close.
var dsmlQuotes = [][2]string{{`"`, `"`}, {`'`, `'`}, {"“", "”"}, {"‘", "’"}, {"”", "”"}, {"„", "“"}}

// dsmlValue reads an attribute value at the start of s; ok is false when s
// ends inside it.
func dsmlValue(s string) (value, rest string, ok bool) {
	for _, q := range dsmlQuotes {
		if r, found := strings.CutPrefix(s, q[0]); found {
			end := strings.Index(r, q[1])
			if end < 0 {
				return "", "", false
			}
			return r[:end], r[end+len(q[1]):], true
		}
	}
	j := 0
	for j < len(s) && !isBlank(s[j]) && s[j] != '>' && !strings.HasPrefix(s[j:], "/>") {
		j++
	}
	return s[:j], s[j:], j < len(s)
}

// dsmlClosed reports whether body ends with what a syntax's close left of
// a closing tag: "</｜DSML｜function_" or "</｜DSML｜tool_" before "calls>",
// "</｜DSML｜" before " calls>" or "invoke>".
func dsmlClosed(body string) bool {
	i := strings.LastIndex(body, "</")
	if i < 0 {
		return false
	}
	name, closing, rest, ok := dsmlTag(body[i:])
	return ok && closing && rest == "" && dsmlWrapperName(name)
}

// dsmlWrapperName reports whether a closing tag's name closes the block:
// a wrapper's, or what the syntax's close left of one ("function_" before
// "calls>", "" before " calls>" or "invoke>").
func dsmlWrapperName(name string) bool {
	switch name {
	case "function_calls", "tool_calls", "calls", "function_", "tool_", "":
		return true
	}
	return false
}

func sniffDSML(body string) parsed {
	for s := body; s != ""; {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			break
		}
		s = s[i:]
		if tag, closing, rest, ok := dsmlTag(s); ok && !closing && tag == "invoke" {
			attrs, _, _, _ := dsmlAttrs(rest)
			return parsed{name: attrs["name"]}
		}
		s = s[1:]
	}
	return parsed{}
}
