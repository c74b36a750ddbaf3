package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// The outputs are vLLM's, named per case; tool names are made the tests'
// own (get_weather, search) where the case is about the shape. runSteps
// runs each case under auto too.

// TestGLM47: tests/tool_parsers/test_glm47_moe_tool_parser.py
// (TestGlm47ExtractToolCalls), get_current_date made search.
func TestGLM47(t *testing.T) {
	inline := "<tool_call>search</tool_call>"
	newline := "<tool_call>search\n</tool_call>"
	sameLine := "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>"
	shanghai := "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Shanghai</arg_value></tool_call>"
	runSteps(t, []stepCase{
		{
			name:  "a call without arguments, inline (test_zero_arg_inline)",
			opts:  glmTaught,
			steps: []step{feed("Checking."+inline, "Checking.", call(detect.GLM, "search", `{}`, inline)), end("")},
		},
		{
			name:  "a call without arguments, a newline (test_zero_arg_newline)",
			opts:  glmTaught,
			steps: []step{feed(newline, "", call(detect.GLM, "search", `{}`, newline)), end("")},
		},
		{
			name: "no newline after the name, two calls (test_args_same_line, test_multiple)",
			opts: glmTaught,
			steps: []step{feed(sameLine+shanghai, "",
				call(detect.GLM, "get_weather", `{"city":"Beijing"}`, sameLine),
				call(detect.GLM, "get_weather", `{"city":"Shanghai"}`, shanghai)), end("")},
		},
	})
}
