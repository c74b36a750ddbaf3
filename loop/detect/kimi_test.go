package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

var kimiTaught = detect.Options{Taught: detect.KimiK2, Known: known}

// Kimi K2's special tokens.
const (
	kmB    = "<|tool_calls_section_begin|>"
	kmE    = "<|tool_calls_section_end|>"
	kmCB   = "<|tool_call_begin|>"
	kmArg  = "<|tool_call_argument_begin|>"
	kmCE   = "<|tool_call_end|>"
	kmSpec = kmB + "\n" + kmCB + "functions.get_weather:0" + kmArg + `{"city": "Paris"}` + kmCE + "\n" + kmE
)

func TestKimiK2(t *testing.T) {
	two := kmB + kmCB + "functions.search:0" + kmArg + `{"q": "a"}` + kmCE + kmCB + "functions.get_weather:1" + kmArg + `{}` + kmCE + kmE
	singular := "<|tool_call_section_begin|>" + kmCB + "functions.search:0" + kmArg + `{"q": "b"}` + kmCE + "<|tool_call_section_end|>"
	k25 := "<|tool_call_section_begin|>" + kmCB + "functions.get_weather:0" + kmArg + `{"city": "Paris"}` + kmCE + "<|tool_call_section_end|>"
	k25Open := "<|tool_call_section_begin|>" + kmCB + "functions.search:0" + kmArg + "{}" + kmCE
	mixed := "<|tool_call_section_begin|>" + kmCB + "functions.search:0" + kmArg + `{"q": "c"}` + kmCE + kmE
	noPrefix := kmB + kmCB + " search:3 " + kmArg + ` {"q": "d"} ` + kmCE + kmE
	noIndex := kmB + kmCB + "functions.search" + kmArg + `{"q": "e"}` + kmCE + kmE
	dotted := kmB + kmCB + "functions.mcp.search:0" + kmArg + `{}` + kmCE + kmE
	noCallEnd := kmB + kmCB + "functions.search:0" + kmArg + `{"q": "f"}` + "\n" + kmCB + "functions.get_weather:1" + kmArg + `{"city": "Oslo"}` + kmE
	repair := kmB + kmCB + "functions.search:0" + kmArg + "{q: 'g',}" + kmCE + kmE
	noArgs := kmB + kmCB + "functions.search:0" + kmArg + kmCE + kmE
	bare := kmCB + "functions.search:0" + kmArg + `{"q": "h"}` + kmCE
	unknown := kmB + kmCB + "functions.rm:0" + kmArg + `{"path": "/"}` + kmCE + kmE
	runSteps(t, []stepCase{
		{
			name: "the model card's example, text around",
			opts: kimiTaught,
			steps: []step{
				feed("Checking.\n"+kmSpec+"\nDone.", "Checking.\n\nDone.",
					call(detect.KimiK2, "get_weather", `{"city":"Paris"}`, kmSpec)),
				end(""),
			},
		},
		{
			name: "two calls",
			opts: kimiTaught,
			steps: []step{feed(two, "",
				call(detect.KimiK2, "search", `{"q":"a"}`, two),
				call(detect.KimiK2, "get_weather", `{}`, two)), end("")},
		},
		{
			name:  "the singular section tokens some checkpoints write",
			opts:  kimiTaught,
			steps: []step{feed(singular, "", call(detect.KimiK2, "search", `{"q":"b"}`, singular)), end("")},
		},
		{
			// Kimi K2.5's singular token as vLLM's kimi_k2 parser lists it
			// (tool_calls_start_token_variants) and its tests feed it
			// (tests/tool_parsers/test_kimi_k2_tool_parser.py,
			// test_marker_variants: "Reasoning <|tool_call_section_begin|>";
			// tests/reasoning/test_kimi_k2_reasoning_parser.py,
			// IMPLICIT_END_SINGULAR_VARIANT), closed by its singular end.
			name: "Kimi K2.5's singular section after text",
			opts: kimiTaught,
			steps: []step{
				feed("Reasoning "+k25, "Reasoning ", call(detect.KimiK2, "get_weather", `{"city":"Paris"}`, k25)),
				end(""),
			},
		},
		{
			// A parser test of the singular variant (test_singular_section_variant):
			// the reply ends right after the call, the section's end left out.
			name:  "Kimi K2.5's singular section, its end left out",
			opts:  kimiTaught,
			steps: []step{feed(k25Open, ""), end("", call(detect.KimiK2, "search", `{}`, k25Open))},
		},
		{
			name:  "singular opening, plural close",
			opts:  kimiTaught,
			steps: []step{feed(mixed, "", call(detect.KimiK2, "search", `{"q":"c"}`, mixed)), end("")},
		},
		{
			name:  "an id without functions., white space around the parts",
			opts:  kimiTaught,
			steps: []step{feed(noPrefix, "", call(detect.KimiK2, "search", `{"q":"d"}`, noPrefix)), end("")},
		},
		{
			name:  "an id without :IDX",
			opts:  kimiTaught,
			steps: []step{feed(noIndex, "", call(detect.KimiK2, "search", `{"q":"e"}`, noIndex)), end("")},
		},
		{
			name:  "a dotted name keeps its dots",
			opts:  kimiTaught,
			steps: []step{feed(dotted, "", call(detect.KimiK2, "mcp.search", `{}`, dotted)), end("")},
		},
		{
			name: "a missing <|tool_call_end|> ends the call at the next one or the section's end",
			opts: kimiTaught,
			steps: []step{feed(noCallEnd, "",
				call(detect.KimiK2, "search", `{"q":"f"}`, noCallEnd),
				call(detect.KimiK2, "get_weather", `{"city":"Oslo"}`, noCallEnd)), end("")},
		},
		{
			name:  "arguments repaired leniently",
			opts:  kimiTaught,
			steps: []step{feed(repair, "", call(detect.KimiK2, "search", `{"q":"g"}`, repair)), end("")},
		},
		{
			name:  "no arguments",
			opts:  kimiTaught,
			steps: []step{feed(noArgs, "", call(detect.KimiK2, "search", `{}`, noArgs)), end("")},
		},
		{
			name: "a call without the section; the section's end after it is part of it",
			opts: kimiTaught,
			steps: []step{
				feed("a "+bare+"\n", "a "),
				feed(kmE[:9], ""),
				feed(kmE[9:]+" b", " b", call(detect.KimiK2, "search", `{"q":"h"}`, bare+"\n"+kmE)),
				end(""),
			},
		},
		{
			name: "a call without the section, then another block",
			opts: kimiTaught,
			steps: []step{
				feed(bare+kmSpec, "",
					call(detect.KimiK2, "search", `{"q":"h"}`, bare),
					call(detect.KimiK2, "get_weather", `{"city":"Paris"}`, kmSpec)),
				end(""),
			},
		},
		{
			name: "fed in pieces",
			opts: kimiTaught,
			steps: []step{
				feed("x <|tool_calls_sec", "x "),
				feed(kmSpec[len("<|tool_calls_sec"):len(kmSpec)-5], ""),
				feed(kmSpec[len(kmSpec)-5:], "", call(detect.KimiK2, "get_weather", `{"city":"Paris"}`, kmSpec)),
				end(""),
			},
		},
		{
			name:  "taught: unknown tool is a call",
			opts:  kimiTaught,
			steps: []step{feed(unknown, "", call(detect.KimiK2, "rm", `{"path":"/"}`, unknown)), end("")},
		},
		{
			name:  "native mode: known tool is a call, unknown is text",
			opts:  native,
			steps: []step{feed(unknown+kmSpec, unknown, call(detect.KimiK2, "get_weather", `{"city":"Paris"}`, kmSpec)), end("")},
		},
		{
			name: "prose naming the tokens",
			opts: kimiTaught,
			steps: []step{
				feed("Kimi writes "+kmB+" then "+kmCB+" before each call.", "Kimi writes "+kmB+" then "+kmCB+" before each call."),
				end(""),
			},
		},
		{
			name: "the longest marker is held, and no more",
			opts: kimiTaught,
			steps: []step{
				feed("x "+kmB[:len(kmB)-1], "x "),
				feed("!", kmB[:len(kmB)-1]+"!"),
				end(""),
			},
		},
	})
}

func TestKimiK2Errors(t *testing.T) {
	for _, tc := range []struct {
		name, block, wantName string
	}{
		{"no argument token", kmB + kmCB + "functions.search:0" + `{"q": "x"}` + kmCE + kmE, "search"},
		{"arguments not an object", kmB + kmCB + "functions.search:0" + kmArg + `"x"` + kmCE + kmE, "search"},
		{"arguments not JSON", kmB + kmCB + "functions.search:0" + kmArg + `}{` + kmCE + kmE, "search"},
		{"text instead of a call", kmB + kmCB + "functions.search:0" + kmArg + `{}` + kmCE + "and more" + kmE, "search"},
		{"an empty id", kmB + kmCB + kmArg + `{}` + kmCE + kmE, ""},
	} {
		runSteps(t, []stepCase{{
			name:  tc.name,
			opts:  kimiTaught,
			steps: []step{feed(tc.block, "", errCall(detect.KimiK2, tc.wantName, tc.block, detect.ErrMalformed)), end("")},
		}})
	}
	open := kmB + kmCB + "functions.get_weather:0" + kmArg + `{"city": "Pa`
	runSteps(t, []stepCase{
		{
			name:  "unclosed at End",
			opts:  kimiTaught,
			steps: []step{feed(open, ""), end("", errCall(detect.KimiK2, "get_weather", open, detect.ErrUnclosed))},
		},
		{
			name:  "unclosed at End in another format, no name: text",
			opts:  hermesTaught,
			steps: []step{feed(kmB+kmCB+"functions.get_wea", ""), end(kmB + kmCB + "functions.get_wea")},
		},
	})
}

func FuzzKimiK2(f *testing.F) { fuzzDetector(f, taughtWithLimit(detect.KimiK2)) }

func BenchmarkFeedPlainKimiK2(b *testing.B)   { benchFeed(b, prose, kimiTaught) }
func BenchmarkFeedDenseLTKimiK2(b *testing.B) { benchFeed(b, denseLT, kimiTaught) }
