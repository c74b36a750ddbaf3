package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// TestHermesWrappers replays the wrappers llama.cpp's Hermes 2 Pro parser
// accepts (inputs from its tests/test-chat.cpp, tool special_function) and
// the ones mlx-lm's tool tests record from Qwen2.5-Coder (tool multiply),
// under hermes, under auto and in native mode.
func TestHermesWrappers(t *testing.T) {
	kn := func(name string) bool {
		return name == "special_function" || name == "multiply" || name == "get_weather"
	}
	sf := `{"name": "special_function", "arguments": {"arg1": 1}}`
	mul := `{"name": "multiply", "arguments": {"a": 12234585, "b": 48838483920}}`
	blocks := []struct{ name, raw, call string }{
		{"test-chat.cpp <function_call>", "<function_call>\n" + sf + "\n</function_call>", "special_function"},
		{"test-chat.cpp <tool>", "<tool>\n  " + sf + "\n</tool>", "special_function"},
		{"test-chat.cpp <tools>", "<tools>\n  " + sf + "\n</tools>", "special_function"},
		{"test-chat.cpp <response>", "<response>\n  " + sf + "\n</response>", "special_function"},
		{"test-chat.cpp <json>", "<json>\n  " + sf + "\n</json>", "special_function"},
		{"test-chat.cpp fenced <response>", "```xml\n<response>\n    " + sf + "\n</response>\n```", "special_function"},
		{"test-chat.cpp fenced <function_call> after a blank line", "```json\n\n                    <function_call> " + sf + " \n                    </function_call> \n```", "special_function"},
		{"mlx-lm Qwen2.5-Coder-7B fenced <function_call>", "```xml\n<function_call>\n  " + mul + "\n</function_call>\n```", "multiply"},
		{"mlx-lm Qwen2.5-Coder-32B <tools>", "<tools>\n" + mul + "\n</tools>", "multiply"},
	}
	args := map[string]string{"special_function": `{"arg1":1}`, "multiply": `{"a":12234585,"b":48838483920}`}
	for _, f := range []detect.Format{detect.Hermes, detect.Auto, ""} {
		opts := detect.Options{Taught: f, Known: kn}
		var cases []stepCase
		for _, b := range blocks {
			cases = append(cases, stepCase{
				name: string(f) + ": " + b.name,
				opts: opts,
				steps: []step{
					feed("Let me check.\n"+b.raw+"\nDone.", "Let me check.\n\nDone.", call(detect.Hermes, b.call, args[b.call], b.raw)),
					end(""),
				},
			})
		}
		runSteps(t, cases)
	}
}

// TestHermesWrappersStayText: the wrapper tags are common in prose and XML,
// so they are never the taught format; only a call of a known tool is taken.
func TestHermesWrappersStayText(t *testing.T) {
	unknown := "<json>\n{\"name\": \"rm\", \"arguments\": {\"path\": \"/\"}}\n</json>"
	broken := "<function_call>\n{\"name\": \"rm\" \"arguments\" ::: }\n</function_call>"
	brokenKnown := "<function_call>\n{\"name\": \"search\" \"arguments\" ::: }\n</function_call>"
	for _, f := range []detect.Format{detect.Hermes, detect.Auto} {
		opts := detect.Options{Taught: f, Known: known}
		runSteps(t, []stepCase{
			{name: string(f) + ": unknown tool", opts: opts, steps: []step{feed(unknown+" ok", unknown+" ok"), end("")}},
			{name: string(f) + ": malformed, unknown tool", opts: opts, steps: []step{feed(broken, broken), end("")}},
			{
				name:  string(f) + ": malformed, known tool: a PARSE_ERROR",
				opts:  opts,
				steps: []step{feed(brokenKnown, "", errCall(detect.Hermes, "search", brokenKnown, detect.ErrMalformed)), end("")},
			},
			{
				name:  string(f) + ": prose and XML",
				opts:  opts,
				steps: []step{feed("<response>ok</response> and <tool> tags, <json>[1]</json>", "<response>ok</response> and <tool> tags, <json>[1]</json>"), end("")},
			},
		})
	}
}

// TestGenericToolXML: <tool><name>…</name><arguments>…</arguments></tool>,
// read as xml, under xml and under auto; known tools only.
func TestGenericToolXML(t *testing.T) {
	// The shape prompt-taught agents teach (one element per parameter).
	one := "<tool><name>get_weather</name><arguments><city>Paris</city><days>3</days></arguments></tool>"
	// The same with <parameters>, indented, as a curl agent's prompt shows it.
	indented := "<tool>\n  <name>search</name>\n  <parameters>\n    <q>raw</q>\n  </parameters>\n</tool>"
	jsonArgs := "<tool>\n<name>search</name>\n<arguments>{\"q\": \"go\"}</arguments>\n</tool>"
	unknown := "<tool><name>curl</name><arguments><url>x</url></arguments></tool>"
	// llxprt-code's TextToolCallParser tests ("Generic XML format").
	llxprt := "<tool>\n  <name>search</name>\n  <arguments>\n    <query>TypeScript tutorials</query>\n    <limit>10</limit>\n  </arguments>\n</tool>"
	for _, f := range []detect.Format{detect.XML, detect.Auto} {
		opts := detect.Options{Taught: f, Known: known}
		runSteps(t, []stepCase{
			{name: string(f) + ": llxprt-code's call", opts: opts, steps: []step{feed("Let me search for that.\n"+llxprt, "Let me search for that.\n", call(detect.XML, "search", `{"query":"TypeScript tutorials","limit":"10"}`, llxprt)), end("")}},
			{name: string(f) + ": one call", opts: opts, steps: []step{feed("a "+one+" b", "a  b", call(detect.XML, "get_weather", `{"city":"Paris","days":"3"}`, one)), end("")}},
			{name: string(f) + ": <parameters>, indented", opts: opts, steps: []step{feed(indented, "", call(detect.XML, "search", `{"q":"raw"}`, indented)), end("")}},
			{name: string(f) + ": arguments as JSON", opts: opts, steps: []step{feed(jsonArgs, "", call(detect.XML, "search", `{"q":"go"}`, jsonArgs)), end("")}},
			{name: string(f) + ": unknown tool stays text", opts: opts, steps: []step{feed(unknown, unknown), end("")}},
		})
	}
}
