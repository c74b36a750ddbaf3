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

// TestSeedOSSLlamaCpp: llama.cpp's tests/test-chat.cpp, "ByteDance-Seed-OSS":
// two wrappers a line apart, a JSON array value (a string until toolhost
// coerces it by the schema), quotes and newlines inside values.
func TestSeedOSSLlamaCpp(t *testing.T) {
	qwen := detect.Options{Taught: detect.Qwen3Coder, Known: known}
	a := "<seed:tool_call>\n<function=search>\n<parameter=arg1>1</parameter>\n</function>\n</seed:tool_call>"
	b := "<seed:tool_call>\n<function=get_weather>\n<parameter=arg1>1</parameter>\n<parameter=arg2>2</parameter>\n</function>\n</seed:tool_call>"
	todo := "<seed:tool_call>\n<function=search>\n<parameter=todos>[{\"item\": \"Check stuff\", \"selected\": false}]</parameter>\n</function>\n</seed:tool_call>"
	edit := "<seed:tool_call>\n<function=search>\n<parameter=filename>\nfoo.cpp\n</parameter>\n<parameter=oldString>def foo(arg = \"14\"):\n    return arg + \"bar\"\n\n</parameter>\n</function>\n</seed:tool_call>"
	runSteps(t, []stepCase{
		{
			name: "two wrappers",
			opts: qwen,
			steps: []step{feed(a+"\n"+b, "",
				call(detect.Qwen3Coder, "search", `{"arg1":"1"}`, a),
				call(detect.Qwen3Coder, "get_weather", `{"arg1":"1","arg2":"2"}`, b)),
				end("\n")}, // the line between two blocks, as between two <tool_call> blocks
		},
		{
			name:  "a JSON array value",
			opts:  qwen,
			steps: []step{feed(todo, "", call(detect.Qwen3Coder, "search", `{"todos":"[{\"item\": \"Check stuff\", \"selected\": false}]"}`, todo)), end("")},
		},
		{
			name:  "quotes and newlines inside values",
			opts:  qwen,
			steps: []step{feed(edit, "", call(detect.Qwen3Coder, "search", `{"filename":"foo.cpp","oldString":"def foo(arg = \"14\"):\n    return arg + \"bar\"\n"}`, edit)), end("")},
		},
	})
}
