package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// The outputs are vLLM's, named per case; tool names are made the tests'
// own (get_weather, search) where the case is about the shape. runSteps
// runs each case under auto too.

// TestLFM2: tests/tool_parsers/test_lfm2_tool_parser.py.
func TestLFM2(t *testing.T) {
	py := detect.Options{Taught: detect.Pythonic, Known: known}
	// SIMPLE_FUNCTION_OUTPUT, content after (content_after_tool_call).
	simple := "<|tool_call_start|>[get_weather(candidate_id='12345')]<|tool_call_end|>"
	// parallel_calls: SIMPLE and MORE_TYPES.
	parallel := "<|tool_call_start|>[search(candidate_id='12345'), get_weather(name='John Doe', age=37, " +
		"address={'city': 'San Francisco', 'state': 'CA'}, role=None, passed_test=True, aliases=['John', 'Johnny'])]<|tool_call_end|>"
	// ESCAPED_STRING_FUNCTION_OUTPUT, whitespace after the start token.
	escaped := `<|tool_call_start|> [get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')]<|tool_call_end|>`
	// PARAMETERLESS_FUNCTION_OUTPUT.
	noArgs := "<|tool_call_start|>[search()]<|tool_call_end|>"
	jsonList := `<|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "Zürich", "tags": ["a", {"b": null}]}}]<|tool_call_end|>`
	runSteps(t, []stepCase{
		{
			name: "pythonic calls between LFM2's tokens, content after",
			opts: py,
			steps: []step{
				feed(simple+"\nChecking the current status of candidate ID 12345.", "\nChecking the current status of candidate ID 12345.",
					call(detect.Pythonic, "get_weather", `{"candidate_id":"12345"}`, simple)),
				end(""),
			},
		},
		{
			name: "parallel calls, nested literals",
			opts: py,
			steps: []step{feed(parallel, "",
				call(detect.Pythonic, "search", `{"candidate_id":"12345"}`, parallel),
				call(detect.Pythonic, "get_weather", `{"name":"John Doe","age":37,"address":{"city":"San Francisco","state":"CA"},"role":null,"passed_test":true,"aliases":["John","Johnny"]}`, parallel)),
				end("")},
		},
		{
			name:  "escaped quotes, a blank after the start token",
			opts:  py,
			steps: []step{feed(escaped, "", call(detect.Pythonic, "get_weather", `{"city":"Martha's Vineyard","metric":"\"cool units\""}`, escaped)), end("")},
		},
		{
			name:  "no arguments",
			opts:  py,
			steps: []step{feed("Let me look.\n"+noArgs, "Let me look.\n", call(detect.Pythonic, "search", `{}`, noArgs)), end("")},
		},
		{
			name:  "a JSON list of calls is json's",
			opts:  detect.Options{Taught: detect.JSON, Known: known},
			steps: []step{feed(jsonList, "", call(detect.JSON, "get_weather", `{"city":"Zürich","tags":["a",{"b":null}]}`, jsonList)), end("")},
		},
	})
}
