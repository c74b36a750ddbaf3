package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// TestGemma4Bare: Gemma 4's call without its <|tool_call> token. The
// shapes are vLLM's tests/tool_parsers/test_gemma4_regex_and_bare_calls.py
// (TestGemma4FallbackFormats), with the tests' tool names.
func TestGemma4Bare(t *testing.T) {
	// test_bare_call_with_leading_whitespace.
	prose := `call:search{command:<|"|>make -j8<|"|>}`
	// test_bare_call_after_thought_channel: glued to <channel|>.
	thought := "<|channel>thought\nI need to read the entry source file to inspect the crash point.\n<channel|>"
	glued := `call:search{command:<|"|>cat src/entry.c<|"|>}`
	// test_fragmented_call_tag_from_multimodal.
	fragment := `<call>get_weather{city:<|"|>Paris<|"|>}`
	// test_hyphenated_tool_name: a tool the turn cannot run.
	hyphen := `call:web-search{query:<|"|>gemma 4 release<|"|>}`
	// Braces inside a string, nesting and unicode.
	nested := `call:search{q:<|"|>a}b{ "Zürich" \ <|"|>,filter:{tags:[<|"|>x<|"|>,{n:1}]}}`
	cut := `call:search{q:<|"|>abc`
	runSteps(t, []stepCase{
		{
			name:  "after prose, where a line starts",
			opts:  gemmaTaught,
			steps: []step{feed("some prose\n"+prose, "some prose\n", call(detect.Gemma4, "search", `{"command":"make -j8"}`, prose)), end("")},
		},
		{
			name:  "right after the thought channel's close",
			opts:  gemmaTaught,
			steps: []step{feed(thought+glued, thought, call(detect.Gemma4, "search", `{"command":"cat src/entry.c"}`, glued)), end("")},
		},
		{
			name:  "after the fragmented token <call>",
			opts:  gemmaTaught,
			steps: []step{feed(fragment+" ok", " ok", call(detect.Gemma4, "get_weather", `{"city":"Paris"}`, fragment)), end("")},
		},
		{
			name:  "indented, a brace in a string, nested values",
			opts:  gemmaTaught,
			steps: []step{feed("Checking.\n  "+nested+"\nDone.", "Checking.\n  \nDone.", call(detect.Gemma4, "search", `{"q":"a}b{ \"Zürich\" \\ ","filter":{"tags":["x",{"n":1}]}}`, nested)), end("")},
		},
		{
			name:  "two calls on two lines",
			opts:  gemmaTaught,
			steps: []step{feed(prose+"\n"+glued, "", call(detect.Gemma4, "search", `{"command":"make -j8"}`, prose), call(detect.Gemma4, "search", `{"command":"cat src/entry.c"}`, glued)), end("\n")},
		},
		{
			name:  "fed in pieces: the words held where a line starts",
			opts:  gemmaTaught,
			steps: []step{feed("x\nca", "x\n"), feed("ll:sea", ""), feed(`rch{command:<|"|>make -j8<|"|>}`, "", call(detect.Gemma4, "search", `{"command":"make -j8"}`, prose)), end("")},
		},
		{
			name:  "held words that become prose are released",
			opts:  gemmaTaught,
			steps: []step{feed("x\ncall:", "x\n"), feed("search is a tool", "call:search is a tool"), end("")},
		},
		{
			name:  "a tool the turn cannot run stays text",
			opts:  gemmaTaught,
			steps: []step{feed(hyphen, hyphen), end("")},
		},
		{
			name:  "mid-line, prose quoting a call",
			opts:  gemmaTaught,
			steps: []step{feed("I will "+prose+" now.", "I will "+prose+" now."), end("")},
		},
		{
			name:  "cut off: a known tool's call is a PARSE_ERROR",
			opts:  gemmaTaught,
			steps: []step{feed("ok\n"+cut, "ok\n"), end("", errCall(detect.Gemma4, "search", cut, detect.ErrUnclosed))},
		},
		{
			name:  "not read where gemma4 is not taught",
			opts:  hermesTaught,
			steps: []step{feed(prose+"\n"+fragment, prose+"\n"+fragment), end("")},
		},
	})
}
