package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// TestFunctionTag replays the function tag with a JSON body as llama.cpp's
// tests/test-chat.cpp feeds it (Hermes 2 Pro and Functionary v3.1 cases,
// tool special_function), under hermes, llama3_json and auto.
func TestFunctionTag(t *testing.T) {
	kn := func(name string) bool { return name == "special_function" }
	eq := `<function=special_function>{"arg1": 1}</function>`
	named := "<function name=\"special_function\">\n{\"arg1\": 1}\n</function>"
	single := "<function name='special_function'>{'arg1': 1,}</function>"
	wrapped := "<function=special_function>\n{\"arg1\": 1}\n</function>\n</tool_call>"
	want := func(raw string) detect.Call { return call(detect.Hermes, "special_function", `{"arg1":1}`, raw) }
	for _, f := range []detect.Format{detect.Hermes, detect.Llama3JSON, detect.Auto} {
		opts := detect.Options{Taught: f, Known: kn}
		runSteps(t, []stepCase{
			{name: string(f) + ": <function=NAME>", opts: opts, steps: []step{feed("ok "+eq, "ok "), end("", want(eq))}},
			{name: string(f) + ": <function name=\"NAME\">", opts: opts, steps: []step{feed(named+"\nthen", "\nthen", want(named)), end("")}},
			{name: string(f) + ": single quotes, repaired", opts: opts, steps: []step{feed(single+" x", " x", want(single)), end("")}},
			{name: string(f) + ": a stray </tool_call> after it", opts: opts, steps: []step{feed(wrapped+"!", "!", want(wrapped)), end("")}},
		})
	}
	unknown := `<function=rm>{"path": "/"}</function>`
	unknownNamed := `<function name="rm">{"path": "/"}</function>`
	prose := `Write <function name="x"> tags, or <function=y> then {…}.`
	for _, f := range []detect.Format{detect.Hermes, detect.Auto} {
		opts := detect.Options{Taught: f, Known: kn}
		runSteps(t, []stepCase{
			{name: string(f) + ": unknown tools stay text", opts: opts, steps: []step{feed(unknown+unknownNamed, unknown+unknownNamed), end("")}},
			{name: string(f) + ": prose naming the tags", opts: opts, steps: []step{feed(prose, prose), end("")}},
		})
	}
}
