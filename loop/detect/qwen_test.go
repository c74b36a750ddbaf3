package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

var qwenTaught = detect.Options{Taught: detect.Qwen3Coder, Known: known}

const (
	qwenWrapped = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
	qwenBare    = "<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>"
)

func TestQwen3Coder(t *testing.T) {
	bareTrail := qwenBare + "\n</tool_call>"
	bareTwo := "<function=search>\n<parameter=q>\na\n</parameter>\n</function>\n<function=get_weather>\n</function>\n</tool_call>"
	unclosedNext := "<tool_call>\n<function=search>\n<parameter=q>\nx\n<parameter=n>\n2\n</parameter>\n</function>\n</tool_call>"
	unclosedEnd := "<function=search>\n<parameter=q>\nx\n</function>"
	noFunctionEnd := "<tool_call>\n<function=search>\n<parameter=q>\nx\n</parameter>\n</tool_call>"
	unclosedBoth := "<tool_call><function=search><parameter=q>x</tool_call>"
	code := "<function=search>\n<parameter=q>\nif a<b {\n\treturn \"</tool_call>\"\n}\n</parameter>\n</function>"
	unknown := "<function=rm>\n<parameter=path>\n/\n</parameter>\n</function>"
	runSteps(t, []stepCase{
		{
			name: "the wrapped form, text around",
			opts: qwenTaught,
			steps: []step{
				feed("Sure.\n"+qwenWrapped+"\nDone.", "Sure.\n\nDone.", call(detect.Qwen3Coder, "get_weather", `{"city":"Paris"}`, qwenWrapped)),
				end(""),
			},
		},
		{
			name: "without the wrapper",
			opts: qwenTaught,
			steps: []step{
				feed("Sure.\n"+qwenBare, "Sure.\n"),
				feed("\nDone.", "\nDone.", call(detect.Qwen3Coder, "get_weather", `{"city":"Paris"}`, qwenBare)),
				end(""),
			},
		},
		{
			name: "without the wrapper at the end of the reply",
			opts: qwenTaught,
			steps: []step{
				feed(qwenBare+"\n", ""),
				end("\n", call(detect.Qwen3Coder, "get_weather", `{"city":"Paris"}`, qwenBare)),
			},
		},
		{
			name: "without the opening tag: the </tool_call> after it is part of the block",
			opts: qwenTaught,
			steps: []step{
				feed(qwenBare+"\n</tool", ""),
				feed("_call>\nDone.", "\nDone.", call(detect.Qwen3Coder, "get_weather", `{"city":"Paris"}`, bareTrail)),
				end(""),
			},
		},
		{
			name: "two bare functions, then </tool_call>",
			opts: qwenTaught,
			steps: []step{feed(bareTwo, "",
				call(detect.Qwen3Coder, "search", `{"q":"a"}`, "<function=search>\n<parameter=q>\na\n</parameter>\n</function>"),
				call(detect.Qwen3Coder, "get_weather", `{}`, "<function=get_weather>\n</function>\n</tool_call>")), end("\n")},
		},
		{
			name: "a parameter left unclosed ends at the next <parameter=",
			opts: qwenTaught,
			steps: []step{feed(unclosedNext, "",
				call(detect.Qwen3Coder, "search", `{"q":"x","n":"2"}`, unclosedNext)), end("")},
		},
		{
			name:  "a parameter left unclosed ends at </function>",
			opts:  qwenTaught,
			steps: []step{feed(unclosedEnd, ""), end("", call(detect.Qwen3Coder, "search", `{"q":"x"}`, unclosedEnd))},
		},
		{
			name:  "a missing </function> before </tool_call> is tolerated",
			opts:  qwenTaught,
			steps: []step{feed(noFunctionEnd+unclosedBoth, "", call(detect.Qwen3Coder, "search", `{"q":"x"}`, noFunctionEnd), call(detect.Qwen3Coder, "search", `{"q":"x"}`, unclosedBoth)), end("")},
		},
		{
			name:  "a value may hold markup",
			opts:  qwenTaught,
			steps: []step{feed(code+" ok", " ok", call(detect.Qwen3Coder, "search", `{"q":"if a<b {\n\treturn \"</tool_call>\"\n}"}`, code)), end("")},
		},
		{
			name:  "taught hermes: the wrapped form is a call in its own format",
			opts:  hermesTaught,
			steps: []step{feed(qwenWrapped, "", call(detect.Qwen3Coder, "get_weather", `{"city":"Paris"}`, qwenWrapped)), end("")},
		},
		{
			name:  "taught: unknown tool is a call",
			opts:  qwenTaught,
			steps: []step{feed(unknown, ""), end("", call(detect.Qwen3Coder, "rm", `{"path":"/"}`, unknown))},
		},
		{
			name:  "other format: a bare function naming an unknown tool is text",
			opts:  hermesTaught,
			steps: []step{feed(unknown+"!", unknown+"!"), end("")},
		},
		{
			name: "other format: a bare function naming a known tool is a call",
			opts: hermesTaught,
			steps: []step{
				feed(qwenBare+"!", "!", call(detect.Qwen3Coder, "get_weather", `{"city":"Paris"}`, qwenBare)),
				end(""),
			},
		},
		{
			name: "prose writing the tag",
			opts: qwenTaught,
			steps: []step{
				feed("Use <function=name> then <function=x>\nfor it, or <function=>, <function=a\nb> and <function=a b> text.",
					"Use <function=name> then <function=x>\nfor it, or <function=>, <function=a\nb> and <function=a b> text."),
				end(""),
			},
		},
		{
			name: "fenced: the fence is part of the block",
			opts: qwenTaught,
			steps: []step{
				feed("```xml\n"+bareTrail+"\n```\nok", "\nok", call(detect.Qwen3Coder, "get_weather", `{"city":"Paris"}`, "```xml\n"+bareTrail+"\n```")),
				end(""),
			},
		},
		{
			name: "fenced with text after the block: an example, shown",
			opts: qwenTaught,
			steps: []step{
				feed("```\n"+qwenBare+"\nthen\n```\n", "```\n"+qwenBare+"\nthen\n```\n"),
				end(""),
			},
		},
	})
}

func TestQwen3CoderErrors(t *testing.T) {
	for _, tc := range []struct {
		name, block, wantName string
	}{
		{"text after a parameter", "<function=search>\n<parameter=q>x</parameter>\nq=y\n</function>", "search"},
		{"an unfinished parameter tag", "<function=search>\n<parameter=q\nx</parameter>\n</function>", "search"},
		{"a parameter given twice", "<function=search><parameter=q>1</parameter><parameter=q>2</parameter></function>", "search"},
	} {
		runSteps(t, []stepCase{{
			name:  tc.name,
			opts:  qwenTaught,
			steps: []step{feed(tc.block, ""), end("", errCall(detect.Qwen3Coder, tc.wantName, tc.block, detect.ErrMalformed))},
		}})
	}
	open := "<function=get_weather>\n<parameter=city>\nPa"
	runSteps(t, []stepCase{
		{
			name:  "unclosed at End",
			opts:  qwenTaught,
			steps: []step{feed(open, ""), end("", errCall(detect.Qwen3Coder, "get_weather", open, detect.ErrUnclosed))},
		},
		{
			name:  "in <tool_call>: text instead of a function",
			opts:  qwenTaught,
			steps: []step{feed("<tool_call><function=search></function>x</tool_call>", "", errCall(detect.Qwen3Coder, "search", "<tool_call><function=search></function>x</tool_call>", detect.ErrMalformed)), end("")},
		},
	})
}

func FuzzQwen3Coder(f *testing.F) { fuzzDetector(f, taughtWithLimit(detect.Qwen3Coder)) }

func BenchmarkFeedPlainQwen3Coder(b *testing.B)   { benchFeed(b, prose, qwenTaught) }
func BenchmarkFeedDenseLTQwen3Coder(b *testing.B) { benchFeed(b, denseLT, qwenTaught) }

// TestQwen3CoderPythonValues: a parameter value in Python's syntax
// (['a', 'b'], {'k': True}) reaches the tool host as written, where the
// tool's schema turns it into an array or object (toolhost's
// pythonLiteralJSON), and a string parameter keeps it; under qwen3_coder
// and auto alike.
func TestQwen3CoderPythonValues(t *testing.T) {
	block := "<tool_call>\n<function=search>\n<parameter=q>\n['a', \"b\"]\n</parameter>\n<parameter=opts>\n{'exact': True}\n</parameter>\n</function>\n</tool_call>"
	for _, f := range []detect.Format{detect.Qwen3Coder, detect.Auto} {
		runSteps(t, []stepCase{{
			name:  string(f),
			opts:  detect.Options{Taught: f, Known: known},
			steps: []step{feed(block, "", call(detect.Qwen3Coder, "search", `{"q":"['a', \"b\"]","opts":"{'exact': True}"}`, block)), end("")},
		}})
	}
}
