package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

func TestHermes(t *testing.T) {
	spec := "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call>"
	argString := `<tool_call>{"name": "search", "arguments": "{\"q\": \"go <generics>\"}"}</tool_call>`
	params := `<tool_call>{"name": "search", "parameters": {"q": "x"}}</tool_call>`
	list := `<tool_call>[{"name": "search", "arguments": {"q": "a"}}, {"name": "get_weather", "arguments": {}}]</tool_call>`
	openai := `<tool_call>{"type": "function", "function": {"name": "search", "arguments": "{\"q\":\"b\"}"}}</tool_call>`
	repair := "<tool_call>\n{'name': 'search', arguments: {q: 'c',},}\n</tool_call>"
	noArgs := `<tool_call>{"name": "search"}</tool_call>`
	qwen := "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=note>\n\ntwo\nlines\n\n</parameter>\n</function>\n</tool_call>"
	qwenTwo := "<tool_call><function=search><parameter=q>x</parameter></function>\n<function=get_weather></function></tool_call>"
	unknown := `<tool_call>{"name": "rm", "arguments": {}}</tool_call>`
	runSteps(t, []stepCase{
		{
			name: "documented example, text around",
			opts: hermesTaught,
			steps: []step{
				feed("Sure.\n"+spec+"\nLet me know.", "Sure.\n\nLet me know.", call(detect.Hermes, "get_weather", `{"city":"Paris","days":3}`, spec)),
				end(""),
			},
		},
		{
			name:  "arguments as a JSON string",
			opts:  hermesTaught,
			steps: []step{feed(argString, "", call(detect.Hermes, "search", `{"q":"go <generics>"}`, argString)), end("")},
		},
		{
			name:  "parameters as an alias",
			opts:  hermesTaught,
			steps: []step{feed(params, "", call(detect.Hermes, "search", `{"q":"x"}`, params)), end("")},
		},
		{
			name: "a list of calls",
			opts: hermesTaught,
			steps: []step{feed(list, "",
				call(detect.Hermes, "search", `{"q":"a"}`, list),
				call(detect.Hermes, "get_weather", `{}`, list)), end("")},
		},
		{
			name:  "OpenAI's function shape",
			opts:  hermesTaught,
			steps: []step{feed(openai, "", call(detect.Hermes, "search", `{"q":"b"}`, openai)), end("")},
		},
		{
			name:  "repaired leniently",
			opts:  hermesTaught,
			steps: []step{feed(repair, "", call(detect.Hermes, "search", `{"q":"c"}`, repair)), end("")},
		},
		{
			name:  "no arguments",
			opts:  hermesTaught,
			steps: []step{feed(noArgs, "", call(detect.Hermes, "search", `{}`, noArgs)), end("")},
		},
		{
			name: "Qwen3-Coder body: values lose one newline each side",
			opts: hermesTaught,
			steps: []step{feed(qwen, "", call(detect.Qwen3Coder, "get_weather", `{"city":"Paris","note":"\ntwo\nlines\n"}`, qwen)),
				end("")},
		},
		{
			name: "Qwen3-Coder body with two functions",
			opts: hermesTaught,
			steps: []step{feed(qwenTwo, "",
				call(detect.Qwen3Coder, "search", `{"q":"x"}`, qwenTwo),
				call(detect.Qwen3Coder, "get_weather", `{}`, qwenTwo)), end("")},
		},
		{
			name: "native mode: a local server writes <tool_call> for a known tool",
			opts: native,
			steps: []step{
				feed("<tool_ca", ""),
				feed("ll>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", "",
					call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)),
				end(""),
			},
		},
		{
			name:  "taught: unknown tool is a call",
			opts:  hermesTaught,
			steps: []step{feed(unknown, "", call(detect.Hermes, "rm", `{}`, unknown)), end("")},
		},
		{
			name:  "native mode: unknown tool is text",
			opts:  native,
			steps: []step{feed(unknown, unknown), end("")},
		},
		{
			name:  "prose naming the tag",
			opts:  hermesTaught,
			steps: []step{feed("I will use <tool_call> tags are useful.", "I will use <tool_call> tags are useful."), end("")},
		},
		{
			// A word right after the tag may be a GLM name line until the
			// byte after it shows it is not.
			name: "prose naming the tag, a word at the end of a piece",
			opts: hermesTaught,
			steps: []step{
				feed("I will use <tool_call> tags.", "I will use "),
				feed(" Then", "<tool_call> tags. Then"),
				feed(" <tool_call> tags.", " "),
				end("<tool_call> tags."),
			},
		},
		{
			name:  "<tool_callx> is text, <tool_ at End too",
			opts:  hermesTaught,
			steps: []step{feed("<tool_callx> <tool_", "<tool_callx> "), end("<tool_")},
		},
	})
}

func TestHermesErrors(t *testing.T) {
	for _, tc := range []struct {
		name, block, wantName string
	}{
		{"not JSON", "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\" ]}}\n</tool_call>", "search"},
		{"no name", `<tool_call>{"arguments": {"q": "x"}}</tool_call>`, ""},
		{"not a call", `<tool_call>{"q": "x"}</tool_call>`, ""},
		{"arguments not an object", `<tool_call>{"name": "search", "arguments": [1]}</tool_call>`, "search"},
		{"arguments string not JSON", `<tool_call>{"name": "search", "arguments": "}{"}</tool_call>`, "search"},
		{"empty", "<tool_call>\n</tool_call>", ""},
	} {
		runSteps(t, []stepCase{{
			name:  tc.name,
			opts:  hermesTaught,
			steps: []step{feed(tc.block, "", errCall(detect.Hermes, tc.wantName, tc.block, detect.ErrMalformed)), end("")},
		}})
	}
	open := "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"unfini"
	runSteps(t, []stepCase{
		{
			name:  "unclosed at End",
			opts:  hermesTaught,
			steps: []step{feed(open, ""), end("", errCall(detect.Hermes, "search", open, detect.ErrUnclosed))},
		},
		{
			name:  "unclosed at End, Qwen3-Coder",
			opts:  hermesTaught,
			steps: []step{feed("<tool_call>\n<function=get_weather>\n<par", ""), end("", errCall(detect.Qwen3Coder, "get_weather", "<tool_call>\n<function=get_weather>\n<par", detect.ErrUnclosed))},
		},
		{
			name:  "only the marker at End",
			opts:  hermesTaught,
			steps: []step{feed("ok <tool_call>\n", "ok "), end("", errCall(detect.Hermes, "", "<tool_call>\n", detect.ErrUnclosed))},
		},
		{
			name:  "native mode, malformed, known name: an error call",
			opts:  native,
			steps: []step{feed(`<tool_call>{"name": "search", "arguments": 5}</tool_call>`, "", errCall(detect.Hermes, "search", `<tool_call>{"name": "search", "arguments": 5}</tool_call>`, detect.ErrMalformed)), end("")},
		},
		{
			name:  "native mode, unclosed without a name: text",
			opts:  native,
			steps: []step{feed("<tool_call>{", ""), end("<tool_call>{")},
		},
	})
}
