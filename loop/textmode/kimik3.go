package textmode

import (
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/toolhost"
)

// Kimi K3's XTML (docs/tool-calls.md): its special tokens <|open|>,
// <|sep|> and <|close|> are the brackets of every element.
const (
	k3ToolsOpen  = "<|open|>tools<|sep|>"
	k3ToolsClose = "<|close|>tools<|sep|>"
	k3CallClose  = "<|close|>call<|sep|>"
	k3ArgClose   = "<|close|>argument<|sep|>"
)

// k3AttrEscaper escapes an XTML attribute value as K3's encoder does:
// & then ".
var k3AttrEscaper = strings.NewReplacer(`&`, "&amp;", `"`, "&quot;")

// K3 ships no Jinja template: its encoder (encoding_k3.py, which vLLM's
// and SGLang's kimi_k3 parsers invert) writes calls in a tools section,
// each argument typed, and a tool's result as a message
// <|open|>message role="tool" tool="NAME" index="N"<|sep|>…<|close|>message<|sep|>.
func init() {
	dialects[detect.KimiK3] = dialect{
		how: "Write a " + k3ToolsOpen + " section holding the call: " + `<|open|>call tool="NAME" index="1"<|sep|>` + ", one " +
			`<|open|>argument key="KEY" type="TYPE"<|sep|>VALUE` + k3ArgClose + " element per argument, then " + k3CallClose +
			"; close the section with " + k3ToolsClose + ".",
		rules: []string{
			"TYPE is the argument's JSON type: string, number, boolean, array, object or null. Write a string value as plain text, without quotes or escaping; write every other value as JSON.",
			"In attribute values write & as &amp; and \" as &quot;.",
			"To make several calls at once, write several <|open|>call…" + k3CallClose + " elements in one section, index counting 1, 2, 3 and so on. Their results come back in the order written.",
		},
		fence: plainText,
		frame: `each as <|open|>message role="tool" tool="NAME" index="N"<|sep|>…<|close|>message<|sep|> with your call's index`,
	}
}

// writeKimiK3Calls writes calls as one tools section.
func writeKimiK3Calls(b *strings.Builder, calls []call) {
	b.WriteString(k3ToolsOpen)
	for i, c := range calls {
		b.WriteString(`<|open|>call tool="` + k3AttrEscaper.Replace(c.name) + `" index="` + strconv.Itoa(i+1) + `"<|sep|>`)
		for _, a := range c.args {
			b.WriteString(`<|open|>argument key="` + k3AttrEscaper.Replace(a.name) + `" type="` + jsonType(a.value) + `"<|sep|>`)
			b.WriteString(text(a.value) + k3ArgClose)
		}
		b.WriteString(k3CallClose)
	}
	b.WriteString(k3ToolsClose)
}

// jsonType names the JSON type of the JSON text v, as K3's type attribute
// does.
func jsonType(v string) string {
	switch {
	case v == "":
		return "string"
	case v[0] == '"':
		return "string"
	case v[0] == '{':
		return "object"
	case v[0] == '[':
		return "array"
	case v == "true" || v == "false":
		return "boolean"
	case v == "null":
		return "null"
	}
	return "number"
}

// writeKimiK3Frame writes result r, the i-th of its round, as the tool
// message K3's encoder writes, with our call id beside its index.
func writeKimiK3Frame(b *strings.Builder, i int, r toolhost.Result) {
	b.WriteString(`<|open|>message role="tool"`)
	if name := label(r.Name); name != "" {
		b.WriteString(` tool="` + k3AttrEscaper.Replace(name) + `"`)
	}
	b.WriteString(` index="` + strconv.Itoa(i+1) + `" call_id="` + k3AttrEscaper.Replace(label(r.CallID)) + `"<|sep|>` + "\n")
	// The body on lines of its own (the encoder writes none): a fence a
	// result ends in must close on its own line, or the rest of the
	// message would read as code.
	b.WriteString(textBody(r))
	b.WriteString("\n<|close|>message<|sep|>\n")
}
