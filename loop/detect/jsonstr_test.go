package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// TestMarkersInStrings: inside a JSON string of a block's body, the
// block's closing marker and its own opening marker are data. A fault
// probe had "<tool_call>" in a value shown whole and not run, and
// "</tool_call>" in a value end the block early: a PARSE_ERROR, and the
// block's tail shown to the client.
func TestMarkersInStrings(t *testing.T) {
	hermesOpen := `<tool_call>{"name":"search","arguments":{"q":"what is <tool_call>"}}</tool_call>`
	hermesClose := `<tool_call>{"name":"search","arguments":{"q":"a</tool_call>b"}}</tool_call>`
	hermesEsc := `<tool_call>{"name":"search","arguments":{"q":"\"</tool_call>\\"}}</tool_call>`
	argString := `<tool_call>{"name":"search","arguments":"{\"q\":\"</tool_call>\"}"}</tool_call>`
	wrap := "<function_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"</function_call>\"}}\n</function_call>"
	funcName := `<function name="search">{"q": "x</function>y"}</function>`
	funcEq := `<function=search>{"q": "x</function>y"}</function>`
	deepseek := "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>search<｜tool▁sep｜>{\"q\": \"<｜tool▁calls▁end｜>\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
	kimi := "<|tool_calls_section_begin|><|tool_call_begin|>functions.search:0<|tool_call_argument_begin|>{\"q\": \"a_section_end|>\"}<|tool_call_end|><|tool_calls_section_end|>"
	trBracket := "[TOOL_REQUEST]\nsearch {\"q\": \"[TOOL_REQUEST_END]\"}\n[TOOL_REQUEST_END]"
	qwenQuote := "<tool_call>\n<function=search>\n<parameter=q>\nsay \"hi\n</parameter>\n</function>\n</tool_call>"
	cutString := `<tool_call>{"name":"search","arguments":{"q":"abc</tool_call>`
	runSteps(t, []stepCase{
		{
			name:  "hermes: its opening marker in a value",
			opts:  hermesTaught,
			steps: []step{feed("a "+hermesOpen+" b", "a  b", call(detect.Hermes, "search", `{"q":"what is <tool_call>"}`, hermesOpen)), end("")},
		},
		{
			name:  "hermes: its closing marker in a value",
			opts:  hermesTaught,
			steps: []step{feed("a "+hermesClose+" b", "a  b", call(detect.Hermes, "search", `{"q":"a</tool_call>b"}`, hermesClose)), end("")},
		},
		{
			name:  "hermes: escaped quotes around the closing marker",
			opts:  hermesTaught,
			steps: []step{feed(hermesEsc, "", call(detect.Hermes, "search", `{"q":"\"</tool_call>\\"}`, hermesEsc)), end("")},
		},
		{
			name:  "hermes: arguments as a JSON string holding the closing marker",
			opts:  hermesTaught,
			steps: []step{feed(argString, "", call(detect.Hermes, "search", `{"q":"</tool_call>"}`, argString)), end("")},
		},
		{
			name:  "hermes: the closing marker split across pieces inside a value",
			opts:  hermesTaught,
			steps: []step{feed(hermesClose[:40], ""), feed(hermesClose[40:], "", call(detect.Hermes, "search", `{"q":"a</tool_call>b"}`, hermesClose)), end("")},
		},
		{
			name:  "hermes: a quote in a Qwen3-Coder value is raw text",
			opts:  hermesTaught,
			steps: []step{feed(qwenQuote+" after", " after", call(detect.Qwen3Coder, "search", `{"q":"say \"hi"}`, qwenQuote)), end("")},
		},
		{
			name: "hermes: a string never closed ends at the marker after all, and the rest is shown",
			opts: hermesTaught,
			steps: []step{
				feed(cutString+"\nDone.", ""),
				end("\nDone.", errCall(detect.Hermes, "search", cutString, detect.ErrMalformed)),
			},
		},
		{
			name:  "hermes wrapper",
			opts:  hermesTaught,
			steps: []step{feed(wrap, "", call(detect.Hermes, "search", `{"q":"</function_call>"}`, wrap)), end("")},
		},
		{
			name:  "function tag with a name attribute",
			opts:  hermesTaught,
			steps: []step{feed(funcName, "", call(detect.Hermes, "search", `{"q":"x</function>y"}`, funcName)), end("")},
		},
		{
			name: "function tag with '='",
			opts: hermesTaught,
			// A </tool_call> may still follow (the trail), so the call
			// is reported at the end.
			steps: []step{feed(funcEq, ""), end("", call(detect.Hermes, "search", `{"q":"x</function>y"}`, funcEq))},
		},
		{
			name:  "deepseek",
			opts:  deepseekTaught,
			steps: []step{feed(deepseek, "", call(detect.DeepSeek, "search", `{"q":"<｜tool▁calls▁end｜>"}`, deepseek)), end("")},
		},
		{
			name:  "kimi_k2",
			opts:  kimiTaught,
			steps: []step{feed(kimi, "", call(detect.KimiK2, "search", `{"q":"a_section_end|>"}`, kimi)), end("")},
		},
		{
			name:  "tool_request's bracket form",
			opts:  trTaught,
			steps: []step{feed(trBracket, "", call(detect.ToolRequest, "search", `{"q":"[TOOL_REQUEST_END]"}`, trBracket)), end("")},
		},
	})
}
