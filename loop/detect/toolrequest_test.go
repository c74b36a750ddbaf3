package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

var trTaught = detect.Options{Taught: detect.ToolRequest, Known: known}

func TestToolRequest(t *testing.T) {
	spec := "<<<[TOOL_REQUEST]>>>\ntool_name:「始」get_weather「末」,\ncity:「始」Paris「末」,\ndays:「始」3「末」\n<<<[END_TOOL_REQUEST]>>>"
	multi := "<<<[TOOL_REQUEST]>>>\ntool_name:「始」search「末」,\nq:「始」line one\nline two\n「末」\n<<<[END_TOOL_REQUEST]>>>"
	escape := "<<<[TOOL_REQUEST]>>>\ntool_name:「始」search「末」\nq:「始ESCAPE」a「末」b「末ESCAPE」,\n<<<[END_TOOL_REQUEST]>>>"
	second := "<<<[TOOL_REQUEST]>>>\ntool_name：「始」 get_weather 「末」\ncity:  「始」Oslo「末」\n<<<[END_TOOL_REQUEST]>>>"
	// The close starts at the second '<' of "<<<<[END…": a matcher that
	// restarts at the failing byte would miss it and leave the block open.
	kmp := "<<<[TOOL_REQUEST]>>>\ntool_name:「始」search「末」\n<<<<[END_TOOL_REQUEST]>>>"
	unknown := "<<<[TOOL_REQUEST]>>>\ntool_name:「始」rm「末」\n<<<[END_TOOL_REQUEST]>>>"
	runSteps(t, []stepCase{
		{
			name: "documented example with text around",
			opts: trTaught,
			steps: []step{
				feed("OK.\n"+spec+"\nWaiting.", "OK.\n\nWaiting.", call(detect.ToolRequest, "get_weather", `{"city":"Paris","days":"3"}`, spec)),
				end(""),
			},
		},
		{
			name: "split inside 「始」 and inside a rune",
			opts: trTaught,
			steps: []step{
				feed(spec[:35], ""), // "<<<[TOOL_REQUEST]>>>\ntool_name:「" and one byte of 始
				feed(spec[35:37], ""),
				feed(spec[37:], "", call(detect.ToolRequest, "get_weather", `{"city":"Paris","days":"3"}`, spec)),
				end(""),
			},
		},
		{
			name: "a value spans lines, nothing trimmed",
			opts: trTaught,
			steps: []step{
				feed(multi, "", call(detect.ToolRequest, "search", `{"q":"line one\nline two\n"}`, multi)),
				end(""),
			},
		},
		{
			name: "the ESCAPE form holds 「末」",
			opts: trTaught,
			steps: []step{
				feed(escape, "", call(detect.ToolRequest, "search", `{"q":"a「末」b"}`, escape)),
				end(""),
			},
		},
		{
			name: "several blocks, full-width colon, name trimmed",
			opts: trTaught,
			steps: []step{
				feed(spec+"\n"+second, "",
					call(detect.ToolRequest, "get_weather", `{"city":"Paris","days":"3"}`, spec),
					call(detect.ToolRequest, "get_weather", `{"city":"Oslo"}`, second)),
				end("\n"),
			},
		},
		{
			name: "a closing marker after a false start",
			opts: trTaught,
			steps: []step{
				feed(kmp+"!", "!", errCall(detect.ToolRequest, "search", kmp, detect.ErrMalformed)),
				end(""),
			},
		},
		{
			name: "inside think: shown, not run",
			opts: trTaught,
			steps: []step{
				feed("<think>plan: "+spec+"</think>ok", "<think>plan: "+spec+"</think>ok"),
				end(""),
			},
		},
		{
			name: "a fence holding only the block",
			opts: trTaught,
			steps: []step{
				feed("```\n"+spec+"\n```\n", "", call(detect.ToolRequest, "get_weather", `{"city":"Paris","days":"3"}`, "```\n"+spec+"\n```")),
				end("\n"),
			},
		},
		{
			name: "a longer fenced example",
			opts: trTaught,
			steps: []step{
				feed("```\n"+spec+"\nthen the result\n```\n", "```\n"+spec+"\nthen the result\n```\n"),
				end(""),
			},
		},
		{
			name:  "taught: unknown tool is a call",
			opts:  trTaught,
			steps: []step{feed(unknown, "", call(detect.ToolRequest, "rm", `{}`, unknown)), end("")},
		},
		{
			name:  "other format: unknown tool is text",
			opts:  hermesTaught,
			steps: []step{feed(unknown, unknown), end("")},
		},
		{
			name: "prose after the marker",
			opts: trTaught,
			steps: []step{
				feed("the <<<[TOOL_REQUEST]>>> mark", "the "),
				feed("er starts a call", "<<<[TOOL_REQUEST]>>> marker starts a call"),
				end(""),
			},
		},
	})
}

func TestToolRequestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, block, wantName string
	}{
		{"no tool_name", "<<<[TOOL_REQUEST]>>>\ncity:「始」Paris「末」\n<<<[END_TOOL_REQUEST]>>>", ""},
		{"value not closed", "<<<[TOOL_REQUEST]>>>\ntool_name:「始」search「末」\nq:「始」x\n<<<[END_TOOL_REQUEST]>>>", "search"},
		{"no 「始」", "<<<[TOOL_REQUEST]>>>\ntool_name:「始」search「末」\nq: x\n<<<[END_TOOL_REQUEST]>>>", "search"},
		{"not a key", "<<<[TOOL_REQUEST]>>>\ntool_name:「始」search「末」\nplease run search\n<<<[END_TOOL_REQUEST]>>>", "search"},
	} {
		runSteps(t, []stepCase{{
			name:  tc.name,
			opts:  trTaught,
			steps: []step{feed(tc.block, "", errCall(detect.ToolRequest, tc.wantName, tc.block, detect.ErrMalformed)), end("")},
		}})
	}
	open := "<<<[TOOL_REQUEST]>>>\ntool_name:「始」search「末」\nq:「始」x"
	runSteps(t, []stepCase{{
		name:  "unclosed at End",
		opts:  trTaught,
		steps: []step{feed(open, ""), end("", errCall(detect.ToolRequest, "search", open, detect.ErrUnclosed))},
	}})
}

// TestToolRequestBracket replays the [TOOL_REQUEST] form from llxprt-code's
// TextToolCallParser tests (Gemma), under tool_request and auto.
func TestToolRequestBracket(t *testing.T) {
	kn := func(name string) bool { return name == "list_directory" }
	one := "[TOOL_REQUEST]\nlist_directory {\"path\": \"/home\"}\n[TOOL_REQUEST_END]"
	usr := "[TOOL_REQUEST]\nlist_directory {\"path\": \"/usr\"}\n[TOOL_REQUEST_END]"
	tmp := "[TOOL_REQUEST]\nlist_directory {\"path\": \"/tmp\"}\n[TOOL_REQUEST_END]"
	// llxprt-code: "should handle malformed JSON gracefully"; here repaired.
	bad := "[TOOL_REQUEST]\nlist_directory {path: '/home'}\n[TOOL_REQUEST_END]"
	unknown := "[TOOL_REQUEST] rm {\"path\": \"/\"} [TOOL_REQUEST_END]"
	for _, f := range []detect.Format{detect.ToolRequest, detect.Auto} {
		opts := detect.Options{Taught: f, Known: kn}
		runSteps(t, []stepCase{
			{
				name:  string(f) + ": single call",
				opts:  opts,
				steps: []step{feed("Here is the result:\n"+one, "Here is the result:\n", call(detect.ToolRequest, "list_directory", `{"path":"/home"}`, one)), end("")},
			},
			{
				name: string(f) + ": two calls with text between",
				opts: opts,
				steps: []step{feed("Files in different places:\n"+usr+"\nMore files:\n"+tmp, "Files in different places:\n\nMore files:\n",
					call(detect.ToolRequest, "list_directory", `{"path":"/usr"}`, usr),
					call(detect.ToolRequest, "list_directory", `{"path":"/tmp"}`, tmp)), end("")},
			},
			{
				name:  string(f) + ": unquoted key repaired",
				opts:  opts,
				steps: []step{feed(bad, "", call(detect.ToolRequest, "list_directory", `{"path":"/home"}`, bad)), end("")},
			},
			{
				name:  string(f) + ": prose naming the marker",
				opts:  opts,
				steps: []step{feed("The [TOOL_REQUEST] marker and [TOOL_REQUEST_END].", "The [TOOL_REQUEST] marker and [TOOL_REQUEST_END]."), end("")},
			},
		})
	}
	runSteps(t, []stepCase{
		{
			name:  "tool_request: taught, an unknown tool is a call",
			opts:  detect.Options{Taught: detect.ToolRequest, Known: kn},
			steps: []step{feed(unknown, "", call(detect.ToolRequest, "rm", `{"path":"/"}`, unknown)), end("")},
		},
		{
			name:  "auto: an unknown tool stays text",
			opts:  detect.Options{Taught: detect.Auto, Known: kn},
			steps: []step{feed(unknown, unknown[:len(unknown)-1]), end("]")}, // a last "]" may open ]<]minimax[>[
		},
	})
}
