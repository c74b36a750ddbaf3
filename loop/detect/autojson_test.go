package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// TestAutoJSON: under auto, json's fenced and bare call shapes are calls
// when every name in them is a known tool, bare ones only where a line
// starts; anything else stays text, byte for byte.
func TestAutoJSON(t *testing.T) {
	fenced := "```json\n{\"tool_calls\": [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]}\n```"
	wrapped := `{"tool_calls": [{"name": "search", "arguments": {"q": "x {y}"}}]}`
	fn := `{"type": "function", "function": {"name": "search", "arguments": "{\"q\": \"z\"}"}}`
	list := `[{"name": "search", "arguments": {"q": "a"}}, {"name": "get_weather", "arguments": {}}]`
	mixed := `[{"name": "search", "arguments": {}}, {"name": "rm", "arguments": {}}]`
	unknown := "```json\n{\"name\": \"rm\", \"arguments\": {\"path\": \"/\"}}\n```"
	plainLine := `{"name": "search", "arguments": {"q": "b"}}`
	runSteps(t, []stepCase{
		{
			name: "a fenced block, the fence split across pieces",
			opts: autoOpts,
			steps: []step{
				feed("Checking.\n```js", "Checking.\n"),
				feed(fenced[5:]+"\nDone.", "\nDone.", call(detect.JSON, "get_weather", `{"city":"Paris"}`, fenced)),
				end(""),
			},
		},
		{
			name:  "a fenced call of an unknown tool stays text",
			opts:  autoOpts,
			steps: []step{feed(unknown+"\n", unknown+"\n"), end("")},
		},
		{
			name:  "a fenced list with one unknown name stays text",
			opts:  autoOpts,
			steps: []step{feed("```\n"+mixed+"\n```\n", "```\n"+mixed+"\n```\n"), end("")},
		},
		{
			name:  "a fenced list of calls",
			opts:  autoOpts,
			steps: []step{feed("```\n"+list+"\n```", ""), end("", call(detect.JSON, "search", `{"q":"a"}`, "```\n"+list+"\n```"), call(detect.JSON, "get_weather", `{}`, "```\n"+list+"\n```"))},
		},
		{
			name: "fenced JSON data is code, released at its first key",
			opts: autoOpts,
			steps: []step{
				feed("```json\n{\n  \"ci", ""),
				feed("ty\": 1}\n```\n", "```json\n{\n  \"city\": 1}\n```\n"),
				end(""),
			},
		},
		{
			name:  "a fenced call whose fence is left open at the end",
			opts:  autoOpts,
			steps: []step{feed("```json\n"+plainLine+"\n", ""), end("", call(detect.JSON, "search", `{"q":"b"}`, "```json\n"+plainLine+"\n"))},
		},
		{
			name: "a bare tool_calls object where a line starts",
			opts: autoOpts,
			steps: []step{
				feed("Sure.\n{\"tool_c", "Sure.\n"),
				feed(wrapped[len(`{"tool_c`):]+"\nDone.", "\nDone.", call(detect.JSON, "search", `{"q":"x {y}"}`, wrapped)),
				end(""),
			},
		},
		{
			// Its "type" key first reads as llama3_json (llama.cpp's regex
			// allows it), which waits to see whether ';' joins another.
			name:  "a bare function-wrapped call where a line starts",
			opts:  autoOpts,
			steps: []step{feed(fn, ""), end("", call(detect.Llama3JSON, "search", `{"q":"z"}`, fn))},
		},
		{
			name:  "a bare array of calls where a line starts",
			opts:  autoOpts,
			steps: []step{feed("Both:\n"+list+"\nDone.", "Both:\n\nDone.", call(detect.JSON, "search", `{"q":"a"}`, list), call(detect.JSON, "get_weather", `{}`, list)), end("")},
		},
		{
			name:  "a bare array with one unknown name stays text",
			opts:  autoOpts,
			steps: []step{feed(mixed, mixed), end("")},
		},
		{
			name:  "a bare {name, arguments} object is read as llama3_json",
			opts:  autoOpts,
			steps: []step{feed(plainLine+"\nok", "\nok", call(detect.Llama3JSON, "search", `{"q":"b"}`, plainLine)), end("")},
		},
		{
			name: "bare JSON in the middle of a line stays text",
			opts: autoOpts,
			// The last "]" is held until the reply ends: it may open minimax_m3's token.
			steps: []step{feed("Sure: "+wrapped+" and "+list, "Sure: "+wrapped+" and "+list[:len(list)-1]), end("]")},
		},
		{
			name:  "a bare name alone stays text, as under llama3_json",
			opts:  autoOpts,
			steps: []step{feed(`{"name": "search"} ok`, `{"name": "search"} ok`), end("")},
		},
		{
			name:  "data where a line starts stays text",
			opts:  autoOpts,
			steps: []step{feed("[1, 3]\n[{\"a\": 1}]\n{\"type\": \"object\", \"id\": 3}\n[] {}\n", "[1, 3]\n[{\"a\": 1}]\n{\"type\": \"object\", \"id\": 3}\n[] {}\n"), end("")},
		},
		{
			name:  "a bare call of an unknown tool stays text",
			opts:  autoOpts,
			steps: []step{feed(`{"tool_calls": [{"name": "rm", "arguments": {}}]}`, `{"tool_calls": [{"name": "rm", "arguments": {}}]}`), end("")},
		},
	})
}

// TestAutoFunctoolsAllKnown: under auto a functools list is a call only
// when every name in it is known, as json's bare lists are.
func TestAutoFunctoolsAllKnown(t *testing.T) {
	mixed := `functools[{"name": "search", "arguments": {}}, {"name": "rm", "arguments": {}}]`
	runSteps(t, []stepCase{
		{
			name:  "auto: one unknown name, text",
			opts:  autoOpts,
			steps: []step{feed(mixed, mixed), end("")},
		},
		{
			name: "json: taught, each is a call",
			opts: jsonTaught,
			steps: []step{feed(mixed, "",
				call(detect.JSON, "search", `{}`, mixed), call(detect.JSON, "rm", `{}`, mixed)), end("")},
		},
	})
}
