package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// The outputs are vLLM's, named per case; tool names are made the tests'
// own (get_weather, search) where the case is about the shape. runSteps
// runs each case under auto too.

// TestStep3p5: the openings vLLM's step3p5 parser mends
// (vllm/tool_parsers/step3p5_tool_parser.py,
// _fix_missing_equals_in_function_tag: "<function execute_bash>",
// "<functionexecute_bash>"), around tests/tool_parsers/
// test_step3p5_tool_parser.py's single_tool body.
func TestStep3p5(t *testing.T) {
	qwen := detect.Options{Taught: detect.Qwen3Coder, Known: known}
	body := "\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n</function>\n</tool_call>"
	spaced := "<tool_call>\n<function get_weather>" + body
	glued := "<tool_call>\n<functionget_weather>" + body
	both := "Sure! Let me check the weather for you.<tool_call>\n<function search>" + body + glued
	runSteps(t, []stepCase{
		{
			name:  "<function NAME>",
			opts:  qwen,
			steps: []step{feed(spaced, "", call(detect.Qwen3Coder, "get_weather", `{"city":"Dallas","state":"TX"}`, spaced)), end("")},
		},
		{
			name:  "<functionNAME>",
			opts:  qwen,
			steps: []step{feed(glued, "", call(detect.Qwen3Coder, "get_weather", `{"city":"Dallas","state":"TX"}`, glued)), end("")},
		},
		{
			name: "two calls after text",
			opts: qwen,
			steps: []step{
				feed(both, "Sure! Let me check the weather for you.",
					call(detect.Qwen3Coder, "search", `{"city":"Dallas","state":"TX"}`, both[len("Sure! Let me check the weather for you."):len(both)-len(glued)]),
					call(detect.Qwen3Coder, "get_weather", `{"city":"Dallas","state":"TX"}`, glued)),
				end(""),
			},
		},
	})
}
