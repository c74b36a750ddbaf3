package textmode

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/toolstream/toolstream/loop/detect"
)

// mmNS is MiniMax M3's namespace token, which prefixes every tag of its
// calls (docs/tool-calls.md).
const mmNS = "]<]minimax[>["

// MiniMax M3's chat template writes calls in its namespaced XML, the
// arguments through its to_xml macro (an object's members as child
// elements, an array's values as <item>s, a leaf as raw text). MiniMax's
// templates since M2 put a tool's result in <response>…</response>, but
// <response> around {"name": …} is a call in the hermes wrappers
// llama.cpp accepts, so a model echoing a result could forge one: results
// come back in hermes's <tool_response> frame instead.
func init() {
	dialects[detect.MiniMaxM3] = dialect{
		how: "Write a " + mmNS + "<tool_call> block holding one " + mmNS + `<invoke name="NAME">` + " element per call and, inside it, one element per argument named after the argument: " +
			mmNS + "<KEY>VALUE" + mmNS + "</KEY>. Every tag, opening and closing, starts with " + mmNS + ".",
		rules: []string{
			"Write a string, number or boolean as plain text, without quotes or escaping; write an object as one element per member, and an array as one " + mmNS + "<item>" + " element per value.",
			"To make several calls at once, write several " + mmNS + "<invoke> elements in one block. Their results come back in the order written.",
		},
		fence: plainText,
		frame: "each in a <tool_response>…</tool_response> block",
	}
}

// writeMiniMaxM3Calls writes calls as one tool_call block.
func writeMiniMaxM3Calls(b *strings.Builder, calls []call) {
	b.WriteString(mmNS + "<tool_call>\n")
	for _, c := range calls {
		b.WriteString(mmNS + `<invoke name="` + attrEscaper.Replace(c.name) + `">`)
		for _, a := range c.args {
			var v any
			if json.Unmarshal([]byte(a.value), &v) != nil {
				v = a.value
			}
			writeMMElement(b, a.name, v)
		}
		b.WriteString(mmNS + "</invoke>\n")
	}
	b.WriteString(mmNS + "</tool_call>")
}

// writeMMElement writes v as the element tag, as the template's to_xml
// macro does.
func writeMMElement(b *strings.Builder, tag string, v any) {
	b.WriteString(mmNS + "<" + tag + ">")
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			writeMMElement(b, k, v[k])
		}
	case []any:
		for _, x := range v {
			writeMMElement(b, "item", x)
		}
	case string:
		b.WriteString(v)
	default:
		j, _ := json.Marshal(v)
		b.WriteString(string(j))
	}
	b.WriteString(mmNS + "</" + tag + ">")
}
