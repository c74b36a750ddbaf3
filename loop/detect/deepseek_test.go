package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

var deepseekTaught = detect.Options{Taught: detect.DeepSeek, Known: known}

// DeepSeek's special tokens (fullwidth ｜ U+FF5C, ▁ U+2581).
const (
	dsB    = "<｜tool▁calls▁begin｜>"
	dsE    = "<｜tool▁calls▁end｜>"
	dsCB   = "<｜tool▁call▁begin｜>"
	dsCE   = "<｜tool▁call▁end｜>"
	dsSep  = "<｜tool▁sep｜>"
	dsV3   = dsB + dsCB + "function" + dsSep + "get_weather\n```json\n{\"city\": \"Paris\"}\n```" + dsCE + dsE
	dsV31  = dsB + dsCB + "search" + dsSep + `{"q": "go"}` + dsCE + dsE
	dsBare = dsCB + "search" + dsSep + `{"q": "go"}` + dsCE
)

func TestDeepSeek(t *testing.T) {
	two := dsB + "\n" + dsCB + "function" + dsSep + "search\n```json\n{\"q\": \"a\"}\n```" + dsCE + "\n" +
		dsCB + "function" + dsSep + "get_weather\n```json\n{\"city\": \"Rome\"}\n```" + dsCE + "\n" + dsE
	noCallBegin := dsB + "search" + dsSep + `{"q": "b"}` + dsCE + "get_weather" + dsSep + `{}` + dsCE + dsE
	noCallEnd := dsB + dsCB + "search" + dsSep + `{"q": "c"}` + "\n" + dsCB + "get_weather" + dsSep + `{"city": "Oslo"}` + dsE
	distill := "<｜tool_calls_begin｜>" + dsCB + "function" + dsSep + "search\n```json\n{\"q\": \"d\"}\n```" + dsCE + dsE
	short := "<｜tool▁calls｜>" + dsCB + "search" + dsSep + `{"q": "e"}` + dsCE + dsE
	repair := dsB + dsCB + "search" + dsSep + "{'q': 'f',}" + dsCE + dsE
	argString := dsB + dsCB + "search" + dsSep + `"{\"q\": \"g\"}"` + dsCE + dsE
	v3Unfenced := dsB + dsCB + "function" + dsSep + "search\n{\"q\": \"h\"}\n" + dsCE + dsE
	v31Fenced := dsB + " " + dsCB + " search " + dsSep + "\n```json\n{\"q\": \"i\"}\n```\n" + dsCE + " " + dsE
	noArgs := dsB + dsCB + "search" + dsSep + dsCE + dsE
	bareTwo := dsCB + "search" + dsSep + `{"q": "go"}` + dsCE + "\n" + dsCB + "get_weather" + dsSep + `{}` + dsCE + "\n" + dsE
	unknown := dsB + dsCB + "rm" + dsSep + `{"path": "/"}` + dsCE + dsE
	fenced := "```\n" + dsV31 + "\n```"
	runSteps(t, []stepCase{
		{
			name: "V3/R1 form with text around",
			opts: deepseekTaught,
			steps: []step{
				feed("Let me check.\n"+dsV3+"\nOne moment.", "Let me check.\n\nOne moment.",
					call(detect.DeepSeek, "get_weather", `{"city":"Paris"}`, dsV3)),
				end(""),
			},
		},
		{
			name: "V3 form, two calls, newlines between the tokens",
			opts: deepseekTaught,
			steps: []step{feed(two, "",
				call(detect.DeepSeek, "search", `{"q":"a"}`, two),
				call(detect.DeepSeek, "get_weather", `{"city":"Rome"}`, two)), end("")},
		},
		{
			name:  "V3.1 form",
			opts:  deepseekTaught,
			steps: []step{feed(dsV31, "", call(detect.DeepSeek, "search", `{"q":"go"}`, dsV31)), end("")},
		},
		{
			name: "V3.1 form fed in pieces that cut the fullwidth runes",
			opts: deepseekTaught,
			steps: []step{
				feed("ok \xef\xbd\x9c", "ok \xef\xbd\x9c"),
				feed("<\xef\xbd", ""),
				feed(dsV31[3:], "", call(detect.DeepSeek, "search", `{"q":"go"}`, dsV31)),
				end(""),
			},
		},
		{
			name: "calls without <｜tool▁call▁begin｜> (llama.cpp's parser makes it optional)",
			opts: deepseekTaught,
			steps: []step{feed(noCallBegin, "",
				call(detect.DeepSeek, "search", `{"q":"b"}`, noCallBegin),
				call(detect.DeepSeek, "get_weather", `{}`, noCallBegin)), end("")},
		},
		{
			name: "a missing <｜tool▁call▁end｜> ends the call at the next one or the section's end",
			opts: deepseekTaught,
			steps: []step{feed(noCallEnd, "",
				call(detect.DeepSeek, "search", `{"q":"c"}`, noCallEnd),
				call(detect.DeepSeek, "get_weather", `{"city":"Oslo"}`, noCallEnd)), end("")},
		},
		{
			name:  "the opening spelled as R1's Qwen distills write it",
			opts:  deepseekTaught,
			steps: []step{feed(distill, "", call(detect.DeepSeek, "search", `{"q":"d"}`, distill)), end("")},
		},
		{
			name:  "the short <｜tool▁calls｜> opening",
			opts:  deepseekTaught,
			steps: []step{feed(short, "", call(detect.DeepSeek, "search", `{"q":"e"}`, short)), end("")},
		},
		{
			name:  "arguments repaired leniently",
			opts:  deepseekTaught,
			steps: []step{feed(repair, "", call(detect.DeepSeek, "search", `{"q":"f"}`, repair)), end("")},
		},
		{
			name:  "arguments as a JSON string",
			opts:  deepseekTaught,
			steps: []step{feed(argString, "", call(detect.DeepSeek, "search", `{"q":"g"}`, argString)), end("")},
		},
		{
			name:  "V3 form without the fence",
			opts:  deepseekTaught,
			steps: []step{feed(v3Unfenced, "", call(detect.DeepSeek, "search", `{"q":"h"}`, v3Unfenced)), end("")},
		},
		{
			name:  "V3.1 form with a fence and white space everywhere",
			opts:  deepseekTaught,
			steps: []step{feed(v31Fenced, "", call(detect.DeepSeek, "search", `{"q":"i"}`, v31Fenced)), end("")},
		},
		{
			name:  "no arguments",
			opts:  deepseekTaught,
			steps: []step{feed(noArgs, "", call(detect.DeepSeek, "search", `{}`, noArgs)), end("")},
		},
		{
			name: "a call without the section, then prose",
			opts: deepseekTaught,
			steps: []step{
				feed("a "+dsBare, "a "),
				feed(" b", " b", call(detect.DeepSeek, "search", `{"q":"go"}`, dsBare)),
				end(""),
			},
		},
		{
			name: "calls without the section opening: the section's end after them is part of the last",
			opts: deepseekTaught,
			steps: []step{feed(bareTwo+" done", "\n done",
				call(detect.DeepSeek, "search", `{"q":"go"}`, dsBare),
				call(detect.DeepSeek, "get_weather", `{}`, bareTwo[len(dsBare)+1:])), end("")},
		},
		{
			name: "a call without the section at the end of the reply",
			opts: deepseekTaught,
			steps: []step{
				feed(dsBare+"\n<｜tool▁call", ""),
				end("\n<｜tool▁call", call(detect.DeepSeek, "search", `{"q":"go"}`, dsBare)),
			},
		},
		{
			name:  "fenced: the fence is part of the block",
			opts:  deepseekTaught,
			steps: []step{feed("x\n"+fenced+"\ny", "x\n\ny", call(detect.DeepSeek, "search", `{"q":"go"}`, fenced)), end("")},
		},
		{
			name:  "taught: unknown tool is a call",
			opts:  deepseekTaught,
			steps: []step{feed(unknown, "", call(detect.DeepSeek, "rm", `{"path":"/"}`, unknown)), end("")},
		},
		{
			name:  "native mode: known tool is a call, unknown is text",
			opts:  native,
			steps: []step{feed(dsV3+unknown, unknown, call(detect.DeepSeek, "get_weather", `{"city":"Paris"}`, dsV3)), end("")},
		},
		{
			name:  "auto: known tool is a call, unknown is text",
			opts:  detect.Options{Taught: detect.Auto, Known: known},
			steps: []step{feed(unknown+dsV31, unknown, call(detect.DeepSeek, "search", `{"q":"go"}`, dsV31)), end("")},
		},
		{
			name: "prose naming the token",
			opts: deepseekTaught,
			steps: []step{
				feed("DeepSeek opens calls with "+dsB+" and a call with "+dsCB+" before the name.", "DeepSeek opens calls with "+dsB+" and a call with "+dsCB+" before the name."),
				end(""),
			},
		},
		{
			name: "the longest marker is held, and no more",
			opts: deepseekTaught,
			steps: []step{
				feed("x "+dsB[:len(dsB)-1], "x "),
				feed("!", dsB[:len(dsB)-1]+"!"),
				end(""),
			},
		},
	})
}

func TestDeepSeekErrors(t *testing.T) {
	for _, tc := range []struct {
		name, block, wantName string
	}{
		{"no separator", dsB + dsCB + "search" + dsCE + dsE, "search"},
		{"arguments not an object", dsB + dsCB + "search" + dsSep + `[1]` + dsCE + dsE, "search"},
		{"arguments not JSON", dsB + dsCB + "search" + dsSep + `{"q" ]}` + dsCE + dsE, "search"},
		{"second call broken", dsB + dsCB + "search" + dsSep + `{}` + dsCE + dsCB + "get_weather" + dsSep + "}{" + dsCE + dsE, "search"},
		{"empty section", dsB + dsCB + dsCE + dsE, ""},
	} {
		runSteps(t, []stepCase{{
			name:  tc.name,
			opts:  deepseekTaught,
			steps: []step{feed(tc.block, "", errCall(detect.DeepSeek, tc.wantName, tc.block, detect.ErrMalformed)), end("")},
		}})
	}
	open := dsB + dsCB + "function" + dsSep + "get_weather\n```json\n{\"city\": \"Pa"
	runSteps(t, []stepCase{
		{
			name:  "unclosed at End",
			opts:  deepseekTaught,
			steps: []step{feed(open, ""), end("", errCall(detect.DeepSeek, "get_weather", open, detect.ErrUnclosed))},
		},
		{
			name:  "unclosed at End in another format, known name: an error call",
			opts:  hermesTaught,
			steps: []step{feed(open, ""), end("", errCall(detect.DeepSeek, "get_weather", open, detect.ErrUnclosed))},
		},
		{
			name:  "malformed in another format, unknown name: text",
			opts:  hermesTaught,
			steps: []step{feed(dsB+dsCB+"rm"+dsSep+"}{"+dsCE+dsE, dsB+dsCB+"rm"+dsSep+"}{"+dsCE+dsE), end("")},
		},
		{
			name: "over max_block_bytes",
			opts: detect.Options{Taught: detect.DeepSeek, Known: known, MaxBlockBytes: 100},
			steps: []step{
				feed(dsV3+" after", " after", errCall(detect.DeepSeek, "get_weather", dsV3[:100], detect.ErrTooLarge)),
				end(""),
			},
		},
	})
}

// TestDeepSeekR1 replays DeepSeek-R1's form, function<｜tool▁sep｜>NAME
// with a fenced JSON body, as llama.cpp's tests/test-chat.cpp writes it
// (its special_function tool), under deepseek and under auto.
func TestDeepSeekR1(t *testing.T) {
	r1Known := func(name string) bool { return name == "special_function" }
	body := "function" + dsSep + "special_function\n```json\n{\"arg1\": 1}\n```" + dsCE
	// test-chat.cpp: the whole section.
	whole := dsB + dsCB + body + dsE
	// test-chat.cpp: the short opening without <｜tool▁call▁begin｜>.
	short := "<｜tool▁calls｜>" + body + dsE
	// test-chat.cpp: "Look what's not here: <｜tool▁calls▁end｜>" — R1
	// stops after the call's end.
	noSectionEnd := dsB + dsCB + body
	// test-chat.cpp (test_parser_with_streaming): spaces before, a newline after.
	spaced := "                    " + whole + "\n"
	// test-chat.cpp: after the reasoning.
	thought := "<think>I'm\nthinking</think>\n\n" + whole
	want := func(raw string) detect.Call { return call(detect.DeepSeek, "special_function", `{"arg1":1}`, raw) }
	for _, f := range []detect.Format{detect.DeepSeek, detect.Auto} {
		opts := detect.Options{Taught: f, Known: r1Known}
		runSteps(t, []stepCase{
			{name: string(f) + ": section", opts: opts, steps: []step{feed(whole, "", want(whole)), end("")}},
			{name: string(f) + ": short opening", opts: opts, steps: []step{feed(short, "", want(short)), end("")}},
			{
				name:  string(f) + ": the section's end left out at the end of the reply",
				opts:  opts,
				steps: []step{feed(noSectionEnd, ""), end("", want(noSectionEnd))},
			},
			{
				name:  string(f) + ": the section's end left out, blank space after the call",
				opts:  opts,
				steps: []step{feed(noSectionEnd+"\n\n", ""), end("\n\n", want(noSectionEnd))},
			},
			{name: string(f) + ": spaces before, a newline after", opts: opts, steps: []step{feed(spaced, "                    ", want(whole)), end("\n")}},
			{name: string(f) + ": after <think>", opts: opts, steps: []step{feed(thought, "<think>I'm\nthinking</think>\n\n", want(whole)), end("")}},
		})
	}
	// The call cut inside its fence is still unclosed: the section's end
	// is forgiven only after a call that closed.
	cut := dsB + dsCB + "function" + dsSep + "special_function\n```json\n{\"arg1\": 1}\n```"
	unknownOpen := dsB + dsCB + "function" + dsSep + "rm\n```json\n{}\n```" + dsCE
	runSteps(t, []stepCase{
		{
			name:  "deepseek: cut before the call's end",
			opts:  detect.Options{Taught: detect.DeepSeek, Known: r1Known},
			steps: []step{feed(cut, ""), end("", errCall(detect.DeepSeek, "special_function", cut, detect.ErrUnclosed))},
		},
		{
			name:  "auto: the section's end left out, unknown tool: text",
			opts:  detect.Options{Taught: detect.Auto, Known: r1Known},
			steps: []step{feed(unknownOpen, ""), end(unknownOpen)},
		},
	})
}

func FuzzDeepSeek(f *testing.F) { fuzzDetector(f, taughtWithLimit(detect.DeepSeek)) }

func BenchmarkFeedPlainDeepSeek(b *testing.B)   { benchFeed(b, prose, deepseekTaught) }
func BenchmarkFeedDenseLTDeepSeek(b *testing.B) { benchFeed(b, denseLT, deepseekTaught) }
