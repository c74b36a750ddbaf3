package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

var gemmaTaught = detect.Options{Taught: detect.Gemma4, Known: known}

// Gemma 4's string delimiter.
const gq = `<|"|>`

const gemmaSpec = `<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>`

// The outputs are vLLM's: tests/tool_parsers/test_gemma4_tool_parser.py
// (TestExtractToolCalls, TestParseGemma4Args),
// tests/tool_parsers/test_gemma4_regex_and_bare_calls.py (<turn|> as the
// close, the stray ':', the thought channel) and
// tests/tool_parsers/test_functiongemma_tool_parser.py, with their tool
// names made the tests' own (get_weather, search) where the case is about
// the shape, not the name.
func TestGemma4(t *testing.T) {
	// test_single_tool_call, test_text_before_tool_call.
	london := `<|tool_call>call:get_weather{location:<|"|>London<|"|>}<tool_call|>`
	paris := `<|tool_call>call:get_weather{location:<|"|>Paris<|"|>}<tool_call|>`
	// test_multiple_tool_calls (get_time made search).
	searchLondon := `<|tool_call>call:search{location:<|"|>London<|"|>}<tool_call|>`
	two := london + searchLondon
	// test_nested_arguments, test_string_delimited_dict_key.
	nested := `<|tool_call>call:search{nested:{inner:<|"|>value<|"|>},list:[<|"|>a<|"|>,<|"|>b<|"|>],record_map:{<|"|>3<|"|>:<|"|>new text<|"|>}}<tool_call|>`
	// test_tool_call_with_number_and_boolean, test_null_value, test_mixed_types.
	typed := `<|tool_call>call:search{is_active:true,count:42,score:3.14,param:null,flag:false}<tool_call|>`
	// test_no_arguments.
	noArgs := `<|tool_call>call:search{}<tool_call|>`
	// test_turn_end_closure_instead_of_tool_call_end.
	turnEnd := `<|tool_call>call:search{args:<|"|>-batch -ex run ./poc<|"|>}<turn|>`
	// test_colon_prefixed_tool_call, closed.
	colon := `<|tool_call>:call:search{command:<|"|>pytest<|"|>}<tool_call|>`
	// test_streaming_html_argument_does_not_duplicate_tag_prefixes: markup,
	// quotes and newlines inside a string.
	html := `<|tool_call>call:search{path:<|"|>index.html<|"|>,content:<|"|><!DOCTYPE html>` + "\n" +
		`<html lang="zh-CN">` + "\n" + `<head>` + "\n" + `<|"|>}<tool_call|>`
	// test_string_value_with_comma, with unicode and a backslash.
	unicode := `<|tool_call>call:get_weather{location:<|"|>Zürich, 東京 \ "quoted"<|"|>,unit:<|"|>celsius<|"|>}<tool_call|>`
	// test_bare_call_after_thought_channel: the thought channel is
	// reasoning, then the call (closed here; vLLM's bare fallback is not a
	// block of ours).
	thought := "<|channel>thought\nI need to read the entry source file to inspect the crash point.\n<channel|>"
	afterThought := `<|tool_call>call:search{command:<|"|>cat src/entry.c<|"|>}<tool_call|>`
	// FunctionGemma: test_single_tool_call, test_multiple_tool_calls,
	// TestParseArguments (a number between <escape> stays a string).
	fg := "<start_function_call>call:get_weather{location:<escape>London<escape>}<end_function_call>"
	fg2 := "<start_function_call>call:search{query:<escape>python<escape>,limit:<escape>10<escape>}<end_function_call>"
	runSteps(t, []stepCase{
		{
			name:  "vLLM's single call",
			opts:  gemmaTaught,
			steps: []step{feed(london, "", call(detect.Gemma4, "get_weather", `{"location":"London"}`, london)), end("")},
		},
		{
			name: "text before, the call split as vLLM streams it",
			opts: gemmaTaught,
			steps: []step{
				feed("Let me check the weather for you. ", "Let me check the weather for you. "),
				feed(`<|tool_call>call:get_weather{location:<|"|>Par`, ""),
				feed(`is<|"|>}<tool_call|>`, "", call(detect.Gemma4, "get_weather", `{"location":"Paris"}`, paris)),
				end(""),
			},
		},
		{
			name: "two calls, mid-text",
			opts: gemmaTaught,
			steps: []step{
				feed("First.\n"+two+"\nThen the answer.", "First.\n\nThen the answer.",
					call(detect.Gemma4, "get_weather", `{"location":"London"}`, london),
					call(detect.Gemma4, "search", `{"location":"London"}`, searchLondon)),
				end(""),
			},
		},
		{
			name:  "nested objects, arrays and a string key",
			opts:  gemmaTaught,
			steps: []step{feed(nested, "", call(detect.Gemma4, "search", `{"nested":{"inner":"value"},"list":["a","b"],"record_map":{"3":"new text"}}`, nested)), end("")},
		},
		{
			name:  "bare values are JSON",
			opts:  gemmaTaught,
			steps: []step{feed(typed, "", call(detect.Gemma4, "search", `{"is_active":true,"count":42,"score":3.14,"param":null,"flag":false}`, typed)), end("")},
		},
		{
			name:  "no arguments",
			opts:  gemmaTaught,
			steps: []step{feed(noArgs, "", call(detect.Gemma4, "search", `{}`, noArgs)), end("")},
		},
		{
			name:  "<turn|> closes the last call",
			opts:  gemmaTaught,
			steps: []step{feed(turnEnd, ""), end("", call(detect.Gemma4, "search", `{"args":"-batch -ex run ./poc"}`, turnEnd))},
		},
		{
			name:  "the server stripped the stop token: complete arguments end the call",
			opts:  gemmaTaught,
			steps: []step{feed("On it. "+turnEnd[:len(turnEnd)-len("<turn|>")], "On it. "), end("", call(detect.Gemma4, "search", `{"args":"-batch -ex run ./poc"}`, turnEnd[:len(turnEnd)-len("<turn|>")]))},
		},
		{
			name:  "a stray colon before call:",
			opts:  gemmaTaught,
			steps: []step{feed(colon, "", call(detect.Gemma4, "search", `{"command":"pytest"}`, colon)), end("")},
		},
		{
			name:  "markup, quotes and newlines inside a string",
			opts:  gemmaTaught,
			steps: []step{feed(html, "", call(detect.Gemma4, "search", `{"path":"index.html","content":"<!DOCTYPE html>\n<html lang=\"zh-CN\">\n<head>\n"}`, html)), end("")},
		},
		{
			name:  "unicode and escapes in a string",
			opts:  gemmaTaught,
			steps: []step{feed(unicode, "", call(detect.Gemma4, "get_weather", `{"location":"Zürich, 東京 \\ \"quoted\"","unit":"celsius"}`, unicode)), end("")},
		},
		{
			name: "the thought channel is shown as reasoning and never runs; the call after it does",
			opts: gemmaTaught,
			steps: []step{
				feed(thought+afterThought, thought, call(detect.Gemma4, "search", `{"command":"cat src/entry.c"}`, afterThought)),
				end(""),
			},
		},
		{
			name: "a call quoted in the thought channel runs once",
			opts: gemmaTaught,
			steps: []step{
				feed("<|channel>thought\nI will write "+afterThought+"\n<channel|>"+afterThought,
					"<|channel>thought\nI will write "+afterThought+"\n<channel|>",
					call(detect.Gemma4, "search", `{"command":"cat src/entry.c"}`, afterThought)),
				end(""),
			},
		},
		{
			name: "FunctionGemma's form",
			opts: gemmaTaught,
			steps: []step{
				feed("Let me check the weather for you. "+fg+fg2, "Let me check the weather for you. ",
					call(detect.Gemma4, "get_weather", `{"location":"London"}`, fg),
					call(detect.Gemma4, "search", `{"query":"python","limit":"10"}`, fg2)),
				end(""),
			},
		},
		{
			name: "taught: unknown tool is a call",
			opts: gemmaTaught,
			steps: []step{
				feed(`<|tool_call>call:rm{path:<|"|>/<|"|>}<tool_call|>`, "", call(detect.Gemma4, "rm", `{"path":"/"}`, `<|tool_call>call:rm{path:<|"|>/<|"|>}<tool_call|>`)),
				end(""),
			},
		},
		{
			name: "native mode: a known tool is a call, an unknown one text",
			opts: detect.Options{Known: known},
			steps: []step{
				feed(london+` and <|tool_call>call:rm{}<tool_call|>`, " and <|tool_call>call:rm{}<tool_call|>", call(detect.Gemma4, "get_weather", `{"location":"London"}`, london)),
				end(""),
			},
		},
		{
			name: "the tokens named in prose stay prose",
			opts: gemmaTaught,
			steps: []step{
				feed("Gemma writes <|tool_call> and <start_function_call> tokens, <|tool_call>call: x.", "Gemma writes <|tool_call> and <start_function_call> tokens, <|tool_call>call: x."),
				end(""),
			},
		},
	})
}

// TestGemma4LlamaCpp: llama.cpp's tests/test-chat.cpp, "Google Gemma 4
// (tool calling with Gemma4 dict format)", each case a block of its own,
// names made the tests' own.
func TestGemma4LlamaCpp(t *testing.T) {
	for _, tc := range []struct{ name, before, block, tool, args string }{
		{"string argument", "", `<|tool_call>call:search{city:<|"|>London<|"|>}<tool_call|>`, "search", `{"city":"London"}`},
		{"string with a space", "", `<|tool_call>call:search{city:<|"|>San Francisco<|"|>}<tool_call|>`, "search", `{"city":"San Francisco"}`},
		{"empty args", "", `<|tool_call>call:search{}<tool_call|>`, "search", `{}`},
		{"content before", "Hello, world!\nWhat's up?", `<|tool_call>call:search{city:<|"|>Paris<|"|>}<tool_call|>`, "search", `{"city":"Paris"}`},
		{"integer", "", `<|tool_call>call:search{arg1:42}<tool_call|>`, "search", `{"arg1":42}`},
		{"negative number", "", `<|tool_call>call:search{arg1:-7}<tool_call|>`, "search", `{"arg1":-7}`},
		{"decimal", "", `<|tool_call>call:search{orig:3.14}<tool_call|>`, "search", `{"orig":3.14}`},
		{"booleans and null", "", `<|tool_call>call:search{enabled:true,off:false,value:null}<tool_call|>`, "search", `{"enabled":true,"off":false,"value":null}`},
		{"array of strings", "", `<|tool_call>call:search{todos:[<|"|>buy milk<|"|>,<|"|>walk dog<|"|>]}<tool_call|>`, "search", `{"todos":["buy milk","walk dog"]}`},
		{"object", "", `<|tool_call>call:search{config:{theme:<|"|>dark<|"|>,count:3}}<tool_call|>`, "search", `{"config":{"theme":"dark","count":3}}`},
		{"empty array and dict", "", `<|tool_call>call:search{todos:[],config:{}}<tool_call|>`, "search", `{"todos":[],"config":{}}`},
		{"scientific notation", "", `<|tool_call>call:search{orig:1.5e10}<tool_call|>`, "search", `{"orig":1.5e10}`},
	} {
		runSteps(t, []stepCase{{
			name:  tc.name,
			opts:  gemmaTaught,
			steps: []step{feed(tc.before+tc.block, tc.before, call(detect.Gemma4, tc.tool, tc.args, tc.block)), end("")},
		}})
	}
}

func TestGemma4Errors(t *testing.T) {
	for _, tc := range []struct {
		name, block, wantName string
	}{
		{"a string never closed", `<|tool_call>call:search{q:<|"|>abc}<tool_call|>`, "search"},
		{"a key without its value", `<|tool_call>call:search{q:}<tool_call|>`, "search"},
		{"a key given twice", `<|tool_call>call:search{q:1,q:2}<tool_call|>`, "search"},
		{"no closing brace", `<|tool_call>call:search{q:1<tool_call|>`, "search"},
		{"text after the arguments", `<|tool_call>call:search{q:1} and more<tool_call|>`, "search"},
	} {
		runSteps(t, []stepCase{{
			name:  tc.name,
			opts:  gemmaTaught,
			steps: []step{feed(tc.block, "", errCall(detect.Gemma4, tc.wantName, tc.block, detect.ErrMalformed)), end("")},
		}})
	}
	open := `<|tool_call>call:get_weather{location:<|"|>London`
	// Rule 2: in the taught format a block is a call, the body starting
	// on the line after the token.
	words := "<|tool_call>\nget weather for Paris please\n<tool_call|>"
	runSteps(t, []stepCase{
		{
			name:  "taught: words after the token are a PARSE_ERROR",
			opts:  gemmaTaught,
			steps: []step{feed(words, "", errCall(detect.Gemma4, "get", words, detect.ErrMalformed)), end("")},
		},
		{
			name:  "unclosed at End",
			opts:  gemmaTaught,
			steps: []step{feed(open, ""), end("", errCall(detect.Gemma4, "get_weather", open, detect.ErrUnclosed))},
		},
	})
}

func FuzzGemma4(f *testing.F) { fuzzDetector(f, taughtWithLimit(detect.Gemma4)) }

func BenchmarkFeedPlainGemma4(b *testing.B) { benchFeed(b, prose, gemmaTaught) }
