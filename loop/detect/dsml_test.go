package detect_test

import (
	"strings"
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

var dsmlTaught = detect.Options{Taught: detect.DSML, Known: known}

// DSML's tokens as DeepSeek V3.2 (function_calls) and V4 (tool_calls)
// write them, fullwidth ｜ U+FF5C; the names follow vLLM's tests
// (tests/tool_parsers/test_deepseekv32_tool_parser.py: FC_START, INV_START,
// PARAM_START…; test_deepseekv4_tool_parser.py: TC_START).
const (
	dsmlFC    = "<｜DSML｜function_calls>"
	dsmlFCEnd = "</｜DSML｜function_calls>"
	dsmlTC    = "<｜DSML｜tool_calls>"
	dsmlTCEnd = "</｜DSML｜tool_calls>"
	dsmlInv   = `<｜DSML｜invoke name="`
	dsmlInvE  = "</｜DSML｜invoke>"
	dsmlPar   = `<｜DSML｜parameter name="`
	dsmlParE  = "</｜DSML｜parameter>"
)

// dsmlCall is vLLM's build_tool_call: string="true" parameters, one invoke
// in the wrapper (V3.2's test joins the parameters, V4's puts each on a line).
func dsmlCall(open, close, name string, kv ...string) string {
	var b strings.Builder
	b.WriteString(open + "\n" + dsmlInv + name + "\">\n")
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString(dsmlPar + kv[i] + `" string="true">` + kv[i+1] + dsmlParE + "\n")
	}
	b.WriteString(dsmlInvE + "\n" + close)
	return b.String()
}

// dsmlBars rewrites the tokens of s in another spelling of the bars.
func dsmlBars(s, bar string) string {
	return strings.NewReplacer("<｜DSML｜", "<"+bar+"DSML"+bar, "</｜DSML｜", "</"+bar+"DSML"+bar).Replace(s)
}

func TestDSML(t *testing.T) {
	// test_deepseekv32_tool_parser.py, test_single_tool_with_params.
	v32 := dsmlCall(dsmlFC, dsmlFCEnd, "get_weather", "location", "SF", "date", "2024-01-16")
	// test_deepseekv4_tool_parser.py, test_extract_tool_calls.
	v4 := dsmlCall(dsmlTC, dsmlTCEnd, "get_weather", "location", "Beijing", "unit", "celsius")
	// test_multiple_tools.
	two := dsmlFC + "\n" + dsmlInv + `get_weather">` + "\n" + dsmlPar + `location" string="true">SF` + dsmlParE + "\n" + dsmlInvE + "\n" +
		dsmlInv + `get_weather">` + "\n" + dsmlPar + `location" string="true">NYC` + dsmlParE + "\n" + dsmlInvE + "\n" + dsmlFCEnd
	// test_single_tool_no_params.
	noParams := dsmlFC + "\n" + dsmlInv + `search">` + "\n" + dsmlInvE + "\n" + dsmlFCEnd
	// test_type_conversion_in_non_streaming and
	// test_composed_schema_converts_object_and_array_params: string="false"
	// values are JSON, nested objects and arrays included.
	typed := dsmlFC + "\n" + dsmlInv + `search">` + "\n" +
		dsmlPar + `enabled" string="false">true` + dsmlParE + "\n" +
		dsmlPar + `count" string="false">42` + dsmlParE + "\n" +
		dsmlPar + `wait" string="false">{"type":"for","minutes":2880}` + dsmlParE + "\n" +
		dsmlPar + `patches" string="false">[{"op":"replace","path":"/schedule","value":"quiet"}]` + dsmlParE + "\n" +
		dsmlInvE + "\n" + dsmlFCEnd
	// NousResearch/hermes-agent#119261: a V4 reply leaked on one line.
	leaked := `<｜DSML｜tool_calls> <｜DSML｜invoke name="terminal"> <｜DSML｜parameter name="background" string="false">true</｜DSML｜parameter> <｜DSML｜parameter name="command" string="true">cd /Users/trusktr/src/lume+lume && npx five-server . --port 23456 --open=false</｜DSML｜parameter> </｜DSML｜invoke> </｜DSML｜tool_calls>`
	// sgl-project/sglang#40236: V4 writing V3.2's block name.
	v4FC := dsmlCall(dsmlFC, dsmlFCEnd, "search", "query", "deepseek v4")
	// Unicode, quotes, backslashes and newlines in values.
	esc := dsmlFC + "\n" + dsmlInv + `search">` + "\n" + dsmlPar + `q" string="true">東京の天気 "quoted" \n C:\temp` + "\nline 2" + dsmlParE + "\n" +
		dsmlPar + `opts" string="false">{"lang": "日本語", "esc": "a\"b\\c\u00e9"}` + dsmlParE + "\n" + dsmlInvE + "\n" + dsmlFCEnd
	bare := dsmlInv + `search">` + "\n" + dsmlPar + `q" string="true">go` + dsmlParE + "\n" + dsmlInvE
	self := dsmlTC + "\n" + dsmlInv + `search"/>` + "\n" + dsmlInv + `get_weather">` + dsmlPar + `city" string="true">Oslo` + dsmlParE + dsmlInvE + "\n" + dsmlTCEnd
	curly := dsmlTC + "\n<｜DSML｜invoke name=“get_weather”>\n<｜DSML｜parameter name=“city” string=“true”>Paris" + dsmlParE + "\n" + dsmlInvE + "\n" + dsmlTCEnd
	stray := dsmlTC + dsmlInv + `search"/>` + dsmlParE + "\n" + dsmlInv + `get_weather"/>` + dsmlTCEnd
	// SGLang's DeepSeekV32Detector docstring, "Format 2 - Direct JSON".
	direct := dsmlFC + "\n    " + dsmlInv + `get_weather">` + "\n    { \"city\": \"San Francisco\" }\n" + dsmlInvE + "\n" +
		dsmlInv + `search">{"q": "a</b>", "n": [1, {"k": null}]}` + "\n" + dsmlFCEnd
	noInvEnd := dsmlFC + dsmlInv + `search">` + dsmlPar + `q" string="true">a` + dsmlParE + "\n" + dsmlFCEnd
	unknown := dsmlCall(dsmlTC, dsmlTCEnd, "rm", "path", "/")
	repair := dsmlFC + dsmlInv + `search">` + dsmlPar + `opts" string="false">{'k': 1,}` + dsmlParE + dsmlInvE + dsmlFCEnd
	notJSON := dsmlFC + dsmlInv + `search">` + dsmlPar + `n" string="false">three` + dsmlParE + dsmlInvE + dsmlFCEnd
	runSteps(t, []stepCase{
		{
			name:  "V3.2 wrapper",
			opts:  dsmlTaught,
			steps: []step{feed(v32, "", call(detect.DSML, "get_weather", `{"location":"SF","date":"2024-01-16"}`, v32)), end("")},
		},
		{
			name: "V4 wrapper after text",
			opts: dsmlTaught,
			steps: []step{feed("Let me check. "+v4, "Let me check. ",
				call(detect.DSML, "get_weather", `{"location":"Beijing","unit":"celsius"}`, v4)), end("")},
		},
		{
			name: "two invokes in one wrapper",
			opts: dsmlTaught,
			steps: []step{feed(two, "",
				call(detect.DSML, "get_weather", `{"location":"SF"}`, two),
				call(detect.DSML, "get_weather", `{"location":"NYC"}`, two)), end("")},
		},
		{
			name:  "an invoke without parameters",
			opts:  dsmlTaught,
			steps: []step{feed(noParams, "", call(detect.DSML, "search", `{}`, noParams)), end("")},
		},
		{
			name: "string=false values are JSON, nested ones too",
			opts: dsmlTaught,
			steps: []step{feed(typed, "", call(detect.DSML, "search",
				`{"enabled":true,"count":42,"wait":{"type":"for","minutes":2880},"patches":[{"op":"replace","path":"/schedule","value":"quiet"}]}`, typed)), end("")},
		},
		{
			name: "taught: a V4 reply leaked on one line (hermes-agent#119261)",
			opts: dsmlTaught,
			steps: []step{feed(leaked, "", call(detect.DSML, "terminal",
				`{"background":true,"command":"cd /Users/trusktr/src/lume+lume && npx five-server . --port 23456 --open=false"}`, leaked)), end("")},
		},
		{
			name:  "V4 writing V3.2's function_calls wrapper (sglang#40236)",
			opts:  dsmlTaught,
			steps: []step{feed(v4FC, "", call(detect.DSML, "search", `{"query":"deepseek v4"}`, v4FC)), end("")},
		},
		{
			name: "unicode, quotes, backslashes and newlines",
			opts: dsmlTaught,
			steps: []step{feed(esc, "", call(detect.DSML, "search",
				`{"q":"東京の天気 \"quoted\" \\n C:\\temp\nline 2","opts":{"lang":"日本語","esc":"a\"b\\c\u00e9"}}`, esc)), end("")},
		},
		{
			name: "calls mid-text, text after them flows on",
			opts: dsmlTaught,
			steps: []step{
				feed("Checking.\n\n"+v32+"\n\nMeanwhile, a joke.", "Checking.\n\nMeanwhile, a joke.",
					call(detect.DSML, "get_weather", `{"location":"SF","date":"2024-01-16"}`, v32)),
				end(""),
			},
		},
		{
			name: "after thinking: </think> then calls, nothing in the thinking runs",
			opts: dsmlTaught,
			steps: []step{
				feed("<think>I could write "+bare+" but first I think.</think>\n"+v4FC,
					"<think>I could write "+bare+" but first I think.</think>\n",
					call(detect.DSML, "search", `{"query":"deepseek v4"}`, v4FC)),
				end(""),
			},
		},
		{
			name:  "an invoke without the wrapper",
			opts:  dsmlTaught,
			steps: []step{feed("ok "+bare+" done", "ok  done", call(detect.DSML, "search", `{"q":"go"}`, bare)), end("")},
		},
		{
			name: "a self-closing invoke",
			opts: dsmlTaught,
			steps: []step{feed(self, "",
				call(detect.DSML, "search", `{}`, self),
				call(detect.DSML, "get_weather", `{"city":"Oslo"}`, self)), end("")},
		},
		{
			name: "a bare self-closing invoke ends at its />, text after it flows on",
			opts: dsmlTaught,
			steps: []step{
				feed("ok "+dsmlInv+`search"/> then `+bare+" end", "ok  then  end",
					call(detect.DSML, "search", `{}`, dsmlInv+`search"/>`),
					call(detect.DSML, "search", `{"q":"go"}`, bare)),
				end(""),
			},
		},
		{
			name: "invokes holding one JSON object (SGLang's direct JSON form)",
			opts: dsmlTaught,
			steps: []step{feed(direct, "",
				call(detect.DSML, "get_weather", `{"city":"San Francisco"}`, direct),
				call(detect.DSML, "search", `{"q":"a</b>","n":[1,{"k":null}]}`, direct)), end("")},
		},
		{
			name: "a stray close between invokes is skipped",
			opts: dsmlTaught,
			steps: []step{feed(stray, "",
				call(detect.DSML, "search", `{}`, stray),
				call(detect.DSML, "get_weather", `{}`, stray)), end("")},
		},
		{
			name:  "curly quotes around attribute values",
			opts:  dsmlTaught,
			steps: []step{feed(curly, "", call(detect.DSML, "get_weather", `{"city":"Paris"}`, curly)), end("")},
		},
		{
			name:  "a missing </｜DSML｜invoke> before the wrapper's close",
			opts:  dsmlTaught,
			steps: []step{feed(noInvEnd, "", call(detect.DSML, "search", `{"q":"a"}`, noInvEnd)), end("")},
		},
		{
			name:  "string=false values repaired leniently",
			opts:  dsmlTaught,
			steps: []step{feed(repair, "", call(detect.DSML, "search", `{"opts":{"k":1}}`, repair)), end("")},
		},
		{
			name:  "a string=false value that is not JSON stays text for the schema",
			opts:  dsmlTaught,
			steps: []step{feed(notJSON, "", call(detect.DSML, "search", `{"n":"three"}`, notJSON)), end("")},
		},
		{
			name:  "taught: unknown tool is a call",
			opts:  dsmlTaught,
			steps: []step{feed(unknown, "", call(detect.DSML, "rm", `{"path":"/"}`, unknown)), end("")},
		},
		{
			name:  "not taught: unknown tool stays text",
			opts:  detect.Options{Taught: detect.Hermes, Known: known},
			steps: []step{feed(unknown, unknown), end("")},
		},
		{
			name:  "native mode: a known tool is a call",
			opts:  detect.Options{Known: known},
			steps: []step{feed(v4FC, "", call(detect.DSML, "search", `{"query":"deepseek v4"}`, v4FC)), end("")},
		},
		{
			name:  "rule 2: words after the wrapper",
			opts:  dsmlTaught,
			steps: []step{feed(dsmlFC+"\nget weather for Paris\n"+dsmlFCEnd, "", errCall(detect.DSML, "", dsmlFC+"\nget weather for Paris\n"+dsmlFCEnd, detect.ErrMalformed)), end("")},
		},
		{
			name:  "rule 8: a fence holding one block is that block",
			opts:  dsmlTaught,
			steps: []step{feed("```\n"+v4FC+"\n```\nok", "\nok", call(detect.DSML, "search", `{"query":"deepseek v4"}`, "```\n"+v4FC+"\n```")), end("")},
		},
		{
			name:  "rule 8: a longer fenced example stays code",
			opts:  dsmlTaught,
			steps: []step{feed("```\nWrite:\n"+v4FC+"\n```\n", "```\nWrite:\n"+v4FC+"\n```\n"), end("")},
		},
		{
			name: "prose naming the tokens",
			opts: dsmlTaught,
			steps: []step{
				feed("DeepSeek opens calls with "+dsmlFC+" and "+dsmlInv[:len(dsmlInv)-7]+" tags.", "DeepSeek opens calls with "+dsmlFC+" and "+dsmlInv[:len(dsmlInv)-7]+" tags."),
				end(""),
			},
		},
		{
			name: "the longest marker is held, and no more",
			opts: dsmlTaught,
			steps: []step{
				feed("x <｜｜DSML｜｜ function_calls", "x "),
				feed("!", "<｜｜DSML｜｜ function_calls!"),
				end(""),
			},
		},
	})
}

// TestDSMLBars: the spellings of the bars real outputs write (SPEC's
// variant list; GenericAgent#804, flocks#687, sglang#40236).
func TestDSMLBars(t *testing.T) {
	var cases []stepCase
	for _, bar := range []string{"‖", "｜｜", "||", " | "} {
		for _, v := range []string{v32Of("search"), dsmlCall(dsmlTC, dsmlTCEnd, "search", "q", "go")} {
			in := dsmlBars(v, bar)
			cases = append(cases, stepCase{
				name:  "bar " + bar + " " + in[:strings.Index(in, ">")+1],
				opts:  dsmlTaught,
				steps: []step{feed("a "+in+" b", "a  b", call(detect.DSML, "search", `{"q":"go"}`, in)), end("")},
			})
		}
	}
	spaced := "<｜｜DSML｜｜ tool_calls>\n<｜｜DSML｜｜ invoke name=\"search\">\n<｜｜DSML｜｜ parameter name=\"q\" string=\"true\">go</｜｜DSML｜｜ parameter>\n</｜｜DSML｜｜ invoke>\n</｜｜DSML｜｜ tool_calls>"
	cases = append(cases, stepCase{
		name:  "｜｜DSML｜｜ with a space before the tag name",
		opts:  dsmlTaught,
		steps: []step{feed(spaced, "", call(detect.DSML, "search", `{"q":"go"}`, spaced)), end("")},
	})
	// SGLang's DeepSeekV41Detector: tag names with a leading space, the
	// wrapper named " calls".
	v41 := "<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"search\">\n<｜DSML｜ parameter name=\"q\" string=\"true\">go</｜DSML｜ parameter>\n</｜DSML｜ invoke>\n</｜DSML｜ calls>"
	cases = append(cases, stepCase{
		name:  "V4.1's spaced tag names (SGLang's DeepSeekV41Detector)",
		opts:  dsmlTaught,
		steps: []step{feed("a "+v41+" b", "a  b", call(detect.DSML, "search", `{"q":"go"}`, v41)), end("")},
	})
	runSteps(t, cases)
}

func v32Of(name string) string { return dsmlCall(dsmlFC, dsmlFCEnd, name, "q", "go") }

// TestDSMLOpen: a wrapper whose close never comes (sglang#40236's
// "unterminated section"): complete invokes are calls, one cut off is a
// PARSE_ERROR (rule 4).
func TestDSMLOpen(t *testing.T) {
	inv := func(name, q string) string {
		return dsmlInv + name + `">` + "\n" + dsmlPar + `q" string="true">` + q + dsmlParE + "\n" + dsmlInvE + "\n"
	}
	complete := dsmlTC + "\n" + inv("search", "a") + inv("get_weather", "b")
	cutTag := dsmlTC + "\n" + inv("search", "a") + dsmlInv + `get_weather">` + "\n"
	cutValue := dsmlTC + "\n" + inv("search", "a") + dsmlInv + `get_weather">` + "\n" + dsmlPar + `q" string="true">Par`
	selfLast := dsmlTC + "\n" + inv("search", "a") + dsmlInv + `get_weather"/>`
	runSteps(t, []stepCase{
		{
			name: "complete invokes, the wrapper never closed",
			opts: dsmlTaught,
			steps: []step{feed(complete, ""), end("",
				call(detect.DSML, "search", `{"q":"a"}`, complete),
				call(detect.DSML, "get_weather", `{"q":"b"}`, complete))},
		},
		{
			name: "a self-closing invoke last",
			opts: dsmlTaught,
			steps: []step{feed(selfLast, ""), end("",
				call(detect.DSML, "search", `{"q":"a"}`, selfLast),
				call(detect.DSML, "get_weather", `{}`, selfLast))},
		},
		{
			name: "an invoke cut after its tag",
			opts: dsmlTaught,
			steps: []step{feed(cutTag, ""), end("",
				call(detect.DSML, "search", `{"q":"a"}`, cutTag),
				errCall(detect.DSML, "get_weather", cutTag, detect.ErrUnclosed))},
		},
		{
			name: "an invoke cut inside a value",
			opts: dsmlTaught,
			steps: []step{feed(cutValue, ""), end("",
				call(detect.DSML, "search", `{"q":"a"}`, cutValue),
				errCall(detect.DSML, "get_weather", cutValue, detect.ErrUnclosed))},
		},
		{
			name:  "a bare invoke cut off",
			opts:  dsmlTaught,
			steps: []step{feed(dsmlInv+`search">`+dsmlPar+`q" string="true">x`, ""), end("", errCall(detect.DSML, "search", dsmlInv+`search">`+dsmlPar+`q" string="true">x`, detect.ErrUnclosed))},
		},
	})
}

func TestDSMLErrors(t *testing.T) {
	for _, tc := range []struct {
		name, block, wantName string
	}{
		{"invoke without a name", dsmlFC + "<｜DSML｜invoke>" + dsmlInvE + dsmlFCEnd, ""},
		{"a parameter given twice", dsmlFC + dsmlInv + `search">` + dsmlPar + `q" string="true">a` + dsmlParE + dsmlPar + `q" string="true">b` + dsmlParE + dsmlInvE + dsmlFCEnd, "search"},
		{"a parameter without its close", dsmlFC + dsmlInv + `search">` + dsmlPar + `q" string="true">a` + dsmlInvE + dsmlFCEnd, "search"},
		{"no invoke in the wrapper", dsmlFC + "\n<｜DSML｜parameter name=\"q\">a" + dsmlParE + dsmlFCEnd, ""},
	} {
		runSteps(t, []stepCase{{
			name:  tc.name,
			opts:  dsmlTaught,
			steps: []step{feed(tc.block, "", errCall(detect.DSML, tc.wantName, tc.block, detect.ErrMalformed)), end("")},
		}})
	}
}

func FuzzDSML(f *testing.F) { fuzzDetector(f, taughtWithLimit(detect.DSML)) }

func BenchmarkFeedPlainDSML(b *testing.B)   { benchFeed(b, prose, dsmlTaught) }
func BenchmarkFeedDenseLTDSML(b *testing.B) { benchFeed(b, denseLT, dsmlTaught) }
