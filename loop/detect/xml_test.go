package detect_test

import (
	"strings"
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

func TestXML(t *testing.T) {
	spec := "<tool_use>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n" +
		"<parameter name=\"days\">3</parameter>\n</invoke>\n</tool_use>"
	two := "<function_calls>\n<invoke name=\"search\">\n<parameter name=\"q\">a &amp; b</parameter>\n</invoke>\n" +
		"<invoke name='get_weather'><parameter name='city'>\nNew\nYork\n\n</parameter></invoke>\n</function_calls>"
	minimax := "<minimax:tool_call>\n<invoke name=\"search\">\n<parameter name=\"q\">x</parameter>\n</invoke>\n</minimax:tool_call>"
	code := "<tool_use><invoke name=\"search\"><parameter name=\"q\">\nif a<b {\n\treturn \"</invoke>\"\n}\n</parameter></invoke></tool_use>"
	noParams := `<tool_use><invoke name="search"></invoke></tool_use>`
	unknown := `<tool_use><invoke name="rm"><parameter name="path">/</parameter></invoke></tool_use>`
	runSteps(t, []stepCase{
		{
			name: "documented example with text before and after",
			opts: xmlTaught,
			steps: []step{
				feed("Let me look.\n"+spec+"\nOne moment.", "Let me look.\n\nOne moment.",
					call(detect.XML, "get_weather", `{"city":"Paris","days":"3"}`, spec)),
				end(""),
			},
		},
		{
			name: "several invokes, function_calls wrapper, values raw, one newline trimmed each side",
			opts: xmlTaught,
			steps: []step{
				feed(two, "",
					call(detect.XML, "search", `{"q":"a &amp; b"}`, two),
					call(detect.XML, "get_weather", `{"city":"New\nYork\n"}`, two)),
				end(""),
			},
		},
		{
			name: "minimax wrapper, fed in pieces",
			opts: xmlTaught,
			steps: []step{
				feed("<mini", ""),
				feed("max:tool_call>\n<invoke", ""),
				feed(minimax[len("<minimax:tool_call>\n<invoke"):], "", call(detect.XML, "search", `{"q":"x"}`, minimax)),
				end(""),
			},
		},
		{
			name: "a value runs to the first </parameter>",
			opts: xmlTaught,
			steps: []step{
				feed(code, "", call(detect.XML, "search", `{"q":"if a<b {\n\treturn \"</invoke>\"\n}"}`, code)),
				end(""),
			},
		},
		{
			name:  "no parameters",
			opts:  xmlTaught,
			steps: []step{feed(noParams, "", call(detect.XML, "search", `{}`, noParams)), end("")},
		},
		{
			name:  "taught: unknown tool is a call",
			opts:  xmlTaught,
			steps: []step{feed(unknown, "", call(detect.XML, "rm", `{"path":"/"}`, unknown)), end("")},
		},
		{
			name:  "other format: unknown tool is text",
			opts:  hermesTaught,
			steps: []step{feed(unknown+"!", unknown+"!"), end("")},
		},
		{
			name:  "other format: known tool is a call",
			opts:  hermesTaught,
			steps: []step{feed(noParams, "", call(detect.XML, "search", `{}`, noParams)), end("")},
		},
		{
			name:  "prose mentioning the tag",
			opts:  xmlTaught,
			steps: []step{feed("wrap calls in <tool_use> tags", "wrap calls in <tool_use> tags"), end("")},
		},
		{
			name:  "<tool_usex> and <function_ at End are text",
			opts:  xmlTaught,
			steps: []step{feed("<tool_usex> <function_", "<tool_usex> "), end("<function_")},
		},
	})
}

func TestXMLErrors(t *testing.T) {
	for _, tc := range []struct {
		name, block, wantName string
	}{
		{"no invoke", "<tool_use>\n<call name=\"search\"/>\n</tool_use>", ""},
		{"invoke without a name", "<tool_use><invoke><parameter name=\"q\">x</parameter></invoke></tool_use>", ""},
		{"unclosed parameter", "<tool_use><invoke name=\"search\"><parameter name=\"q\">x</invoke></tool_use>", "search"},
		{"text between parameters", "<tool_use><invoke name=\"search\">q=x</invoke></tool_use>", "search"},
		{"parameter given twice", "<tool_use><invoke name=\"search\"><parameter name=\"q\">x</parameter><parameter name=\"q\">y</parameter></invoke></tool_use>", "search"},
		{"empty body", "<tool_use>\n</tool_use>", ""},
	} {
		runSteps(t, []stepCase{{
			name:  tc.name,
			opts:  xmlTaught,
			steps: []step{feed(tc.block, "", errCall(detect.XML, tc.wantName, tc.block, detect.ErrMalformed)), end("")},
		}})
	}
	open := "<tool_use>\n<invoke name=\"search\">\n<parameter name=\"q\">x"
	runSteps(t, []stepCase{
		{
			name:  "unclosed at End, name read",
			opts:  xmlTaught,
			steps: []step{feed("a "+open, "a "), end("", errCall(detect.XML, "search", open, detect.ErrUnclosed))},
		},
		{
			name:  "unclosed at End in another format, known name",
			opts:  hermesTaught,
			steps: []step{feed(open, ""), end("", errCall(detect.XML, "search", open, detect.ErrUnclosed))},
		},
		{
			name:  "unclosed at End in another format, no name: text",
			opts:  hermesTaught,
			steps: []step{feed("<tool_use>\n<inv", ""), end("<tool_use>\n<inv")},
		},
		{
			name:  "malformed in another format, unknown name: text",
			opts:  hermesTaught,
			steps: []step{feed("<tool_use><invoke name=\"rm\">x</invoke></tool_use>", "<tool_use><invoke name=\"rm\">x</invoke></tool_use>"), end("")},
		},
	})
}

func TestXMLQuirks(t *testing.T) {
	attrs := "<tool_use>\n<invoke id=\"c1\" name=\"search\" type='function'>\n" +
		"<parameter type=\"string\" name='q' required>go</parameter>\n</invoke>\n</tool_use>"
	bareName := "<function_calls><invoke name=search><parameter name=q>x</parameter></invoke></function_calls>"
	noInvokeEnd := "<minimax:tool_call>\n<invoke name=\"search\">\n<parameter name=\"q\">a</parameter>\n" +
		"<invoke name=\"get_weather\">\n<parameter name=\"city\">Rome</parameter>\n</minimax:tool_call>"
	newlines := "<tool_use><invoke name=\"search\"><parameter name=\"q\">\r\n\r\nx\r\n\r\n</parameter>" +
		"<parameter name=\"n\">\n \n</parameter><parameter name=\"m\">\n</parameter></invoke></tool_use>"
	runSteps(t, []stepCase{
		{
			name:  "extra attributes are ignored, name anywhere among them",
			opts:  xmlTaught,
			steps: []step{feed(attrs, "", call(detect.XML, "search", `{"q":"go"}`, attrs)), end("")},
		},
		{
			name:  "unquoted attribute values",
			opts:  xmlTaught,
			steps: []step{feed(bareName, "", call(detect.XML, "search", `{"q":"x"}`, bareName)), end("")},
		},
		{
			name: "a missing </invoke> before the next <invoke and before the wrapper's close",
			opts: xmlTaught,
			steps: []step{feed(noInvokeEnd, "",
				call(detect.XML, "search", `{"q":"a"}`, noInvokeEnd),
				call(detect.XML, "get_weather", `{"city":"Rome"}`, noInvokeEnd)), end("")},
		},
		{
			name: "one newline (\\n or \\r\\n) stripped on each side of a value, nothing else",
			opts: xmlTaught,
			steps: []step{feed(newlines, "",
				call(detect.XML, "search", `{"q":"\r\nx\r\n","n":" ","m":""}`, newlines)), end("")},
		},
	})
	for _, tc := range []struct {
		name, block, wantName string
	}{
		{"no name among the attributes", "<tool_use><invoke id=\"1\" type=\"x\"></invoke></tool_use>", ""},
		{"an empty name", "<tool_use><invoke name=\"\"></invoke></tool_use>", ""},
		{"an unclosed quote", "<tool_use><invoke name=\"search></invoke></tool_use>", ""},
		{"a parameter without a name", "<tool_use><invoke name=\"search\"><parameter id=\"q\">x</parameter></invoke></tool_use>", "search"},
	} {
		runSteps(t, []stepCase{{
			name:  tc.name,
			opts:  xmlTaught,
			steps: []step{feed(tc.block, "", errCall(detect.XML, tc.wantName, tc.block, detect.ErrMalformed)), end("")},
		}})
	}
}

// TestBareInvoke: an <invoke> whose wrapper the model left out, as vLLM's
// MiniMax-M2 parser tests write it inside <minimax:tool_call>, under xml
// and auto; known tools only, since <invoke> is common XML.
func TestBareInvoke(t *testing.T) {
	one := "<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n<parameter name=\"days\">3</parameter>\n</invoke>"
	two := "<invoke name=\"search\"><parameter name=\"q\">go</parameter></invoke>"
	unknown := "<invoke name=\"rm\"><parameter name=\"path\">/</parameter></invoke>"
	// llxprt-code's TextToolCallParser tests (Claude-style XML, no wrapper).
	llxprt := "<invoke name=\"set_temperature\">\n<parameter name=\"value\">23.5</parameter>\n<parameter name=\"celsius\">true</parameter>\n<parameter name=\"room_id\">42</parameter>\n</invoke>"
	temp := func(name string) bool { return name == "set_temperature" }
	runSteps(t, []stepCase{{
		name:  "auto: llxprt-code's bare invoke",
		opts:  detect.Options{Taught: detect.Auto, Known: temp},
		steps: []step{feed(llxprt, "", call(detect.XML, "set_temperature", `{"value":"23.5","celsius":"true","room_id":"42"}`, llxprt)), end("")},
	}})
	prose := "The <invoke> element, <invoker> and <invoke name=<b>x</b>."
	// A tag left open is held (at most 160 bytes) until the stream shows
	// it is not one.
	open := "and <invoke name=x without a close."
	// A tag that never closes is prose after 160 bytes, and what follows
	// them is looked at like any prose, however the text is cut.
	long := "<invoke name=" + strings.Repeat("x ", 90) + "\n[TOOL_CALLS][{\"name\": \"search\", \"arguments\": {}}] ok"
	for _, f := range []detect.Format{detect.XML, detect.Auto} {
		opts := detect.Options{Taught: f, Known: known}
		runSteps(t, []stepCase{
			{
				name: string(f) + ": two bare invokes",
				opts: opts,
				steps: []step{
					feed("Checking.\n"+one+"\n"+two+"\nDone.", "Checking.\n\nDone.",
						call(detect.XML, "get_weather", `{"city":"Paris","days":"3"}`, one),
						call(detect.XML, "search", `{"q":"go"}`, two)),
					end(""),
				},
			},
			{name: string(f) + ": unknown tool stays text", opts: opts, steps: []step{feed(unknown, unknown), end("")}},
			{name: string(f) + ": prose", opts: opts, steps: []step{feed(prose, prose), end("")}},
			{name: string(f) + ": an open tag", opts: opts, steps: []step{feed(open, "and "), end(open[4:])}},
			{
				name: string(f) + ": a tag left open past 160 bytes, a call after it",
				opts: opts,
				steps: []step{
					feed(long, long[:strings.Index(long, "[")]+" ok", call(detect.Mistral, "search", `{}`, long[strings.Index(long, "["):len(long)-3])),
					end(""),
				},
			},
		})
	}
}
