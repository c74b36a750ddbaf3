package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// The outputs are vLLM's, named per case; tool names are made the tests'
// own (get_weather, search) where the case is about the shape. runSteps
// runs each case under auto too.

// TestSeedOSS: tests/tool_parsers/test_seed_oss_tool_parser.py.
func TestSeedOSS(t *testing.T) {
	qwen := detect.Options{Taught: detect.Qwen3Coder, Known: known}
	// tool_call_0_thinking_budget.
	one := "<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, Spain</parameter>\n</function>\n</seed:tool_call>"
	// tool_call_0_thinking_budget (streaming): the think span before.
	think := "<seed:think>\n</seed:cot_budget_reflect>\n</seed:cot_budget_reflect>\nThe current thinking budget is 0, so I will directly start answering the question.\n</seed:think>\n"
	// tool_call_unlimited_thinking_budget: the reply quotes its own call
	// inside <seed:think>, then makes it.
	quoted := "<seed:think>\nGot it. Let me format the function call correctly. The format is <seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, " +
		"Spain</parameter>\n<parameter=unit>celsius</parameter>\n</function>\n</seed:tool_call>. Let me go with that.</seed:think>"
	call2 := "<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, Spain</parameter>\n<parameter=unit>celsius</parameter>\n</function>\n</seed:tool_call>"
	two := "<seed:tool_call>\n<function=get_weather>\n<parameter=location>Zürich</parameter>\n</function>\n<function=search>\n<parameter=q>\"quoted\" \\ {\"a\": [1]}</parameter>\n</function>\n</seed:tool_call>"
	unknown := "<seed:tool_call>\n<function=rm>\n<parameter=path>/</parameter>\n</function>\n</seed:tool_call>"
	runSteps(t, []stepCase{
		{
			name:  "the wrapper around the Qwen3-Coder body",
			opts:  qwen,
			steps: []step{feed(one, "", call(detect.Qwen3Coder, "get_weather", `{"location":"Barcelona, Spain"}`, one)), end("")},
		},
		{
			name: "reasoning before the call",
			opts: qwen,
			steps: []step{
				feed(think+one, think, call(detect.Qwen3Coder, "get_weather", `{"location":"Barcelona, Spain"}`, one)),
				end(""),
			},
		},
		{
			name: "a call quoted inside <seed:think> runs once",
			opts: qwen,
			steps: []step{
				feed(quoted+call2, quoted, call(detect.Qwen3Coder, "get_weather", `{"location":"Barcelona, Spain","unit":"celsius"}`, call2)),
				end(""),
			},
		},
		{
			name: "two calls in one wrapper, mid-text, unicode and escapes",
			opts: qwen,
			steps: []step{
				feed("Checking.\n"+two+"\nDone.", "Checking.\n\nDone.",
					call(detect.Qwen3Coder, "get_weather", `{"location":"Zürich"}`, two),
					call(detect.Qwen3Coder, "search", `{"q":"\"quoted\" \\ {\"a\": [1]}"}`, two)),
				end(""),
			},
		},
		{
			name:  "taught: unknown tool is a call",
			opts:  qwen,
			steps: []step{feed(unknown, "", call(detect.Qwen3Coder, "rm", `{"path":"/"}`, unknown)), end("")},
		},
		{
			name:  "hermes taught: a known tool is a call",
			opts:  hermesTaught,
			steps: []step{feed(one, "", call(detect.Qwen3Coder, "get_weather", `{"location":"Barcelona, Spain"}`, one)), end("")},
		},
	})
}
