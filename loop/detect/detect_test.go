package detect_test

import (
	"strings"
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

var (
	hermesTaught = detect.Options{Taught: detect.Hermes, Known: known}
	xmlTaught    = detect.Options{Taught: detect.XML, Known: known}
	native       = detect.Options{Known: known}
)

const weather = "<tool_call>\n" + `{"name": "get_weather", "arguments": {"city": "Paris"}}` + "\n</tool_call>"

func TestProseAndHoldback(t *testing.T) {
	runSteps(t, []stepCase{
		{
			name: "prose passes through at once",
			opts: hermesTaught,
			steps: []step{
				feed("Hello, ", "Hello, "),
				feed("world. 2 > 1 and {x}.", "world. 2 > 1 and {x}."),
				end(""),
			},
		},
		{
			name: "a < that opens nothing is released",
			opts: hermesTaught,
			steps: []step{
				feed("if a<b && c <= d", "if a<b && c <= d"),
				feed(" <br> <tool <", " <br> <tool "),
				feed("x", "<x"),
				end(""),
			},
		},
		{
			name: "only a possible marker prefix is held",
			opts: hermesTaught,
			steps: []step{
				feed("Let me check <tool", "Let me check "),
				feed("_c", ""),
				feed("allx> no", "<tool_callx> no"),
				end(""),
			},
		},
		{
			name: "held prefix released at End",
			opts: hermesTaught,
			steps: []step{
				feed("see <tool_", "see "),
				end("<tool_"),
			},
		},
		{
			name: "the longest marker is held, and no more",
			opts: hermesTaught,
			steps: []step{
				feed("x <<<[TOOL_REQUEST]>>", "x "),
				feed("!", "<<<[TOOL_REQUEST]>>!"),
				end(""),
			},
		},
		{
			name: "a block after prose: text before is released at once, the call at its close",
			opts: hermesTaught,
			steps: []step{
				feed("Checking. <tool_call>\n{\"name\": ", "Checking. "),
				feed(`"get_weather", "arguments": {"city": "Paris"}}`, ""),
				feed("\n</tool_call>", "", call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)),
				feed(" It is sunny.", " It is sunny."),
				end(""),
			},
		},
	})
}

func TestUTF8(t *testing.T) {
	runSteps(t, []stepCase{
		{
			name: "visible text never ends inside a rune",
			opts: hermesTaught,
			steps: []step{
				feed("caf\xc3", "caf"),
				feed("\xa9 \xe6\x97", "é "),
				feed("\xa5", "日"),
				end(""),
			},
		},
		{
			name: "an incomplete rune is released at End",
			opts: hermesTaught,
			steps: []step{
				feed("x\xe6\x97", "x"),
				end("\xe6\x97"),
			},
		},
		{
			name: "a rune split around a block",
			opts: hermesTaught,
			steps: []step{
				feed("日\xe6", "日"),
				feed("\x9c\xac"+weather+"語", "本語", call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)),
				end(""),
			},
		},
	})
}

func TestThink(t *testing.T) {
	runSteps(t, []stepCase{
		{
			name: "a call inside think is shown and never run",
			opts: hermesTaught,
			steps: []step{
				feed("<think>maybe "+weather, "<think>maybe "+weather),
				feed("</thi", "</thi"),
				feed("nk>\n"+weather, "nk>\n", call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)),
				end(""),
			},
		},
		{
			name: "think opened in pieces",
			opts: xmlTaught,
			steps: []step{
				feed("<thi", ""),
				feed("nk><tool_use><invoke name=\"search\"></invoke></tool_use>", `<think><tool_use><invoke name="search"></invoke></tool_use>`),
				end(""),
			},
		},
		{
			name: "a false end of think",
			opts: hermesTaught,
			steps: []step{
				feed("<think>a </", "<think>a </"),
				feed("b "+weather+"</think>", "b "+weather+"</think>"),
				end(""),
			},
		},
	})
}

func TestFences(t *testing.T) {
	fenced := "```xml\n<tool_use>\n<invoke name=\"search\">\n<parameter name=\"q\">go</parameter>\n</invoke>\n</tool_use>\n```"
	example := "```xml\n<tool_use>\n<invoke name=\"search\">\n<parameter name=\"q\">go</parameter>\n</invoke>\n</tool_use>\nand then the result\n```"
	runSteps(t, []stepCase{
		{
			name: "a fence holding only a block is the block",
			opts: xmlTaught,
			steps: []step{
				feed("Searching:\n"+fenced, "Searching:\n"),
				feed("\nDone.", "\nDone.", call(detect.XML, "search", `{"q":"go"}`, fenced)),
				end(""),
			},
		},
		{
			name: "a fence closed by the end of the stream",
			opts: xmlTaught,
			steps: []step{
				feed(strings.TrimSuffix(fenced, "```")+"  ", ""),
				end("\n  ", call(detect.XML, "search", `{"q":"go"}`, strings.TrimSuffix(fenced, "\n```"))),
			},
		},
		{
			name: "a block inside a longer example is code",
			opts: xmlTaught,
			steps: []step{
				feed("For example:\n"+example, "For example:\n"+example),
				feed("\n"+weather, "\n", call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)),
				end(""),
			},
		},
		{
			name: "text before the block in a fence",
			opts: hermesTaught,
			steps: []step{
				feed("```\nrun "+weather+"\n```\n", "```\nrun "+weather+"\n```\n"),
				end(""),
			},
		},
		{
			name: "markup in a code block is code, the block after it runs",
			opts: hermesTaught,
			steps: []step{
				feed("```go\nx := 1\n"+weather+"\n``", "```go\nx := 1\n"+weather+"\n``"),
				feed("`\n"+weather, "`\n", call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)),
				end(""),
			},
		},
		{
			name: "a fenced block naming an unknown tool in another format is code",
			opts: xmlTaught,
			steps: []step{
				feed("```\n<tool_call>{\"name\": \"rm\", \"arguments\": {}}</tool_call>\n```\n"+weather,
					"```\n<tool_call>{\"name\": \"rm\", \"arguments\": {}}</tool_call>\n```\n",
					call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)),
				end(""),
			},
		},
		{
			name: "backticks that are not a fence",
			opts: hermesTaught,
			steps: []step{
				feed("use ```x``` or `y` then\n``not\n"+weather, "use ```x``` or `y` then\n``not\n",
					call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)),
				end(""),
			},
		},
		{
			name: "an indented fence opener is held like a fence",
			opts: hermesTaught,
			steps: []step{
				feed("  ```json\n  ", "  "),
				feed(weather+"\n  ```", ""),
				end("", call(detect.Hermes, "get_weather", `{"city":"Paris"}`, "```json\n  "+weather+"\n  ```")),
			},
		},
	})
}

func TestRule6KnownNames(t *testing.T) {
	rm := "<tool_call>\n{\"name\": \"rm\", \"arguments\": {\"path\": \"/\"}}\n</tool_call>"
	runSteps(t, []stepCase{
		{
			name:  "taught format: an unknown tool is still a call",
			opts:  hermesTaught,
			steps: []step{feed(rm, "", call(detect.Hermes, "rm", `{"path":"/"}`, rm)), end("")},
		},
		{
			name:  "other format: an unknown tool is text, unchanged",
			opts:  xmlTaught,
			steps: []step{feed(rm, rm), end("")},
		},
		{
			name:  "native mode: every format is other",
			opts:  native,
			steps: []step{feed(rm+" "+weather, rm+" ", call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)), end("")},
		},
		{
			name:  "nil Known: nothing is known",
			opts:  detect.Options{},
			steps: []step{feed(weather, weather), end("")},
		},
	})
}

func TestTooLarge(t *testing.T) {
	big := `{"name": "get_weather", "arguments": {"city": "` + strings.Repeat("x", 100) + `"}}`
	block := "<tool_call>" + big + "</tool_call>"
	opts := detect.Options{Taught: detect.Hermes, Known: known, MaxBlockBytes: 64}
	runSteps(t, []stepCase{
		{
			name: "reported as soon as it passes the limit, the rest dropped",
			opts: opts,
			steps: []step{
				feed("a "+block[:64], "a "),
				feed(block[64:70], "", errCall(detect.Hermes, "get_weather", block[:64], detect.ErrTooLarge)),
				feed(block[70:]+" b", " b"),
				end(""),
			},
		},
		{
			name: "exactly at the limit is fine",
			opts: detect.Options{Taught: detect.Hermes, Known: known, MaxBlockBytes: len(weather)},
			steps: []step{
				feed(weather+"!", "!", call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)),
				end(""),
			},
		},
		{
			name: "unclosed at End after the limit: nothing more to report",
			opts: opts,
			steps: []step{
				feed(block[:80], "", errCall(detect.Hermes, "get_weather", block[:64], detect.ErrTooLarge)),
				end(""),
			},
		},
		{
			name: "another format naming an unknown tool: text",
			opts: detect.Options{Taught: detect.XML, Known: known, MaxBlockBytes: 64},
			steps: []step{
				feed(strings.Replace(block, "get_weather", "rm", 1), strings.Replace(block, "get_weather", "rm", 1)),
				end(""),
			},
		},
		{
			name: "a fenced block: the closing fence is dropped too",
			opts: opts,
			steps: []step{
				feed("```\n"+block+"\n```\nok", "\nok", errCall(detect.Hermes, "get_weather", ("```\n" + block)[:64], detect.ErrTooLarge)),
				end(""),
			},
		},
	})
}

func TestSeveralBlocks(t *testing.T) {
	xml := "<tool_use><invoke name=\"search\"><parameter name=\"q\">a</parameter></invoke>" +
		"<invoke name=\"get_weather\"><parameter name=\"city\">Oslo</parameter></invoke></tool_use>"
	tr := "<<<[TOOL_REQUEST]>>>\ntool_name:「始」search「末」,\nq:「始」b「末」\n<<<[END_TOOL_REQUEST]>>>"
	runSteps(t, []stepCase{{
		name: "blocks of every format in one reply, several calls in one block",
		opts: xmlTaught,
		steps: []step{
			feed("1 "+xml+" 2 "+tr+" 3 "+weather+" 4", "1  2  3  4",
				call(detect.XML, "search", `{"q":"a"}`, xml),
				call(detect.XML, "get_weather", `{"city":"Oslo"}`, xml),
				call(detect.ToolRequest, "search", `{"q":"b"}`, tr),
				call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)),
			end(""),
		},
	}})
}

func TestEndTwiceAndFeedAfterEnd(t *testing.T) {
	d := detect.New(hermesTaught)
	d.Feed("<tool_call>{")
	if _, calls := d.End(); len(calls) != 1 {
		t.Fatalf("End: %d calls, want the unclosed block", len(calls))
	}
	if v, calls := d.End(); v != "" || calls != nil {
		t.Errorf("second End = %q, %v; want nothing", v, calls)
	}
	if v, calls := d.Feed(weather); v != weather || calls != nil {
		t.Errorf("Feed after End = %q, %v; want the text unchanged", v, calls)
	}
}
