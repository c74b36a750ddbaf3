package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// TestFunctools replays FireFunction's functools[…] as llama.cpp's
// tests/test-chat.cpp feeds it (FireFunction v2, tool special_function,
// with its leading space) and the single object Dynamo's phi4 parser test
// reads, under json and auto; where a line starts only.
func TestFunctools(t *testing.T) {
	kn := func(name string) bool { return name == "special_function" || name == "get_current_weather" }
	list := `functools[{"name": "special_function", "arguments": {"arg1": 1}}]`
	object := `functools{"name": "get_current_weather", "parameters": {"location": "Tokyo"}}`
	two := `functools[{"name": "special_function", "arguments": {"arg1": 1}}, {"name": "get_current_weather", "arguments": {"location": "Oslo"}}]`
	unknown := `functools[{"name": "rm", "arguments": {"path": "/"}}]`
	for _, f := range []detect.Format{detect.JSON, detect.Auto} {
		opts := detect.Options{Taught: f, Known: kn}
		runSteps(t, []stepCase{
			{
				name:  string(f) + ": test-chat.cpp's list",
				opts:  opts,
				steps: []step{feed(" "+list, " ", call(detect.JSON, "special_function", `{"arg1":1}`, list)), end("")},
			},
			{
				name:  string(f) + ": Dynamo's single object, prose after",
				opts:  opts,
				steps: []step{feed(object+" ok", " ok", call(detect.JSON, "get_current_weather", `{"location":"Tokyo"}`, object)), end("")},
			},
			{
				name: string(f) + ": two calls, the word split across pieces",
				opts: opts,
				steps: []step{
					feed("Sure.\nfunc", "Sure.\n"),
					feed("tools", ""),
					feed(two[len(functools):], "",
						call(detect.JSON, "special_function", `{"arg1":1}`, two),
						call(detect.JSON, "get_current_weather", `{"location":"Oslo"}`, two)),
					end(""),
				},
			},
			{
				name:  string(f) + ": prose naming the module",
				opts:  opts,
				steps: []step{feed("Python's functools [docs] and functools.partial; of", "Python's functools [docs] and functools.partial; of"), end("")},
			},
		})
	}
	mid := `See functools[{"name": "special_function", "arguments": {"arg1": 1}}]`
	runSteps(t, []stepCase{
		{
			name:  "auto: not where a line starts, text",
			opts:  detect.Options{Taught: detect.Auto, Known: kn},
			steps: []step{feed(mid, mid[:len(mid)-1]), end("]")}, // a last "]" may open ]<]minimax[>[
		},
		{
			name:  "json: taught, an unknown tool is a call (TOOL_NOT_FOUND)",
			opts:  detect.Options{Taught: detect.JSON, Known: kn},
			steps: []step{feed(unknown, "", call(detect.JSON, "rm", `{"path":"/"}`, unknown)), end("")},
		},
		{
			name:  "auto: an unknown tool stays text",
			opts:  detect.Options{Taught: detect.Auto, Known: kn},
			steps: []step{feed(unknown, unknown), end("")},
		},
	})
}

const functools = "functools"
