package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

var autoOpts = detect.Options{Taught: detect.Auto, Known: known}

// TestStrayMarkers: a real call right after a stray or look-alike marker
// is found, whether the stray block is cut short by its own marker again,
// rejected when it closes, or left open at the end.
func TestStrayMarkers(t *testing.T) {
	funcCalls := "<function_calls>\n" + weather + "\n</function_calls>"
	runSteps(t, []stepCase{
		{
			name: "taught: a stray <tool_call> before a real one",
			opts: hermesTaught,
			steps: []step{
				feed("<tool_call>\n"+weather+" ok", "<tool_call>\n ok", call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)),
				end(""),
			},
		},
		{
			name: "native: a stray <tool_call> before a real one",
			opts: native,
			steps: []step{
				feed("<tool_call>\n<tool_call>", "<tool_call>\n"),
				feed(weather[len("<tool_call>"):], "", call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)),
				end(""),
			},
		},
		{
			name: "a look-alike wrapper left open holds a real call",
			opts: hermesTaught,
			steps: []step{
				feed("<tool_use>\n"+weather+"\nbye", ""),
				end("<tool_use>\n\nbye", call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)),
			},
		},
		{
			name: "a look-alike wrapper that closes around a real call",
			opts: hermesTaught,
			steps: []step{
				feed(funcCalls, "<function_calls>\n\n</function_calls>", call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)),
				end(""),
			},
		},
		{
			name: "a rejected block's body with nothing in it is text, byte for byte",
			opts: native,
			steps: []step{
				feed(`<tool_use><invoke name="rm"></invoke></tool_use> and <tool_call>{"name": "x"}`, `<tool_use><invoke name="rm"></invoke></tool_use> and `),
				end(`<tool_call>{"name": "x"}`),
			},
		},
	})
}

func TestTildeFences(t *testing.T) {
	fenced := "~~~\n" + weather + "\n~~~"
	example := "~~~xml\nsay " + weather + "\n~~~\n"
	runSteps(t, []stepCase{
		{
			name: "a tilde fence holding one block is that block",
			opts: hermesTaught,
			steps: []step{
				feed("Now:\n"+fenced+"\nok", "Now:\n\nok", call(detect.Hermes, "get_weather", `{"city":"Paris"}`, fenced)),
				end(""),
			},
		},
		{
			name:  "markup inside a longer tilde-fenced example is text",
			opts:  hermesTaught,
			steps: []step{feed(example, example), end("")},
		},
		{
			name:  "backticks do not close a tilde fence",
			opts:  hermesTaught,
			steps: []step{feed("~~~\n```\n"+weather+"\n~~~\n", "~~~\n```\n"+weather+"\n~~~\n"), end("")},
		},
	})
}

func TestAuto(t *testing.T) {
	rm := `<tool_call>{"name": "rm", "arguments": {}}</tool_call>`
	xmlRm := "<tool_use>\n<invoke name=\"rm\">\n</invoke>\n</tool_use>"
	runSteps(t, []stepCase{
		{
			name:  "a known tool in hermes is a call",
			opts:  autoOpts,
			steps: []step{feed(weather, "", call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)), end("")},
		},
		{
			// Auto teaches hermes: its blocks are taught (rule 2), an
			// unknown tool gets TOOL_NOT_FOUND instead of leaking.
			name:  "an unknown tool in hermes is a call: hermes is taught",
			opts:  autoOpts,
			steps: []step{feed(rm, "", call(detect.Hermes, "rm", `{}`, rm)), end("")},
		},
		{
			name:  "a malformed hermes block is a PARSE_ERROR",
			opts:  autoOpts,
			steps: []step{feed("<tool_call>{oops</tool_call>", "", errCall(detect.Hermes, "", "<tool_call>{oops</tool_call>", detect.ErrMalformed)), end("")},
		},
		{
			name:  "an unknown tool in another dialect is text",
			opts:  autoOpts,
			steps: []step{feed(xmlRm, xmlRm), end("")},
		},
	})
}
