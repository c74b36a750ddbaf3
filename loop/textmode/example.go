package textmode

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/toolhost"
)

// arg is one argument of the worked example: its name and its value as
// JSON text.
type arg struct {
	name  string
	value string
}

// exampleArgs picks the arguments of the worked example: every required
// parameter, plus the first optional one so the model sees that optional
// parameters are written the same way.
func exampleArgs(s *schema) []arg {
	var args []arg
	optional := false
	for _, p := range s.props {
		if !p.required {
			if optional {
				continue
			}
			optional = true
		}
		args = append(args, arg{name: p.name, value: exampleValue(p.name, p.schema, 0)})
	}
	return args
}

// exampleValue returns a plausible JSON value for s: the schema's own
// example, default or first enum value when it has one, else a value of
// its type inside its bounds.
func exampleValue(name string, s *schema, depth int) string {
	switch {
	case s.example != "":
		return s.example
	case s.def != "" && s.def != "null":
		return s.def
	case len(s.enum) > 0:
		return s.enum[0]
	}
	t := ""
	if len(s.types) > 0 {
		t = s.types[0]
	} else if len(s.props) > 0 {
		t = "object"
	} else if s.items != nil {
		t = "array"
	} else if len(s.alts) > 0 {
		return exampleValue(name, s.alts[0], depth)
	}
	switch t {
	case "integer":
		return strconv.FormatFloat(clamp(3, s, true), 'f', -1, 64)
	case "number":
		return strconv.FormatFloat(clamp(1.5, s, false), 'f', -1, 64)
	case "boolean":
		return "true"
	case "null":
		return "null"
	case "array":
		if s.items == nil || depth >= maxDepth {
			return "[]"
		}
		return "[" + exampleValue(name, s.items, depth+1) + "]"
	case "object":
		if depth >= maxDepth {
			return "{}"
		}
		return objectText(exampleArgs(s), ": ", ", ")
	}
	return quote(exampleString(name, s.format))
}

// clamp moves v into the schema's bounds (to a whole number for integers).
func clamp(v float64, s *schema, integer bool) float64 {
	lo, loOK, hi, hiOK := s.bounds()
	if loOK && v < lo {
		v = lo
		if integer {
			v = math.Ceil(v)
		}
	}
	if hiOK && v > hi {
		v = hi
		if integer {
			v = math.Floor(v)
		}
	}
	return v
}

// exampleString is a string value for a parameter without an example:
// shaped by the format when one is stated, else naming the parameter so
// the model sees where its own value goes.
func exampleString(name, format string) string {
	switch format {
	case "date":
		return "2025-01-31"
	case "date-time":
		return "2025-01-31T09:30:00Z"
	case "time":
		return "09:30:00"
	case "email":
		return "user@example.com"
	case "uri", "url", "iri":
		return "https://example.com/"
	case "uuid":
		return "123e4567-e89b-12d3-a456-426614174000"
	}
	return "example " + strings.ReplaceAll(name, "_", " ")
}

// workedExample writes a call of t in format f, exactly in the syntax the
// detector of f accepts: for the model-family dialects, the shape of
// docs/tool-calls.md as each family's chat template renders it (see
// dialects).
func workedExample(f detect.Format, t toolhost.Tool) string {
	return callsText(f, []call{{name: t.Name, args: exampleArgs(parseSchema(t.Parameters))}})
}

// call is one call to write: the tool's name and its arguments in order.
type call struct {
	name string
	args []arg
}

// callsText writes calls as one reply of a model taught f would: in the
// formats with a section or list around calls (xml, json, pythonic,
// mistral, deepseek, kimi_k2, dsml, kimi_k3, minimax_m3) all of them in
// one, elsewhere one block per call on lines of their own.
func callsText(f detect.Format, calls []call) string {
	var b strings.Builder
	switch f {
	case detect.XML:
		xmlText(&b, calls)
	case detect.JSON:
		b.WriteString("```json\n{\"tool_calls\": [")
		for i, c := range calls {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(callText(c.name, c.args))
		}
		b.WriteString("]}\n```")
	case detect.Llama3JSON:
		for i, c := range calls {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(`{"name": ` + quote(c.name) + `, "parameters": ` + objectText(c.args, ": ", ", ") + "}")
		}
	case detect.Pythonic:
		pythonicText(&b, calls)
	case detect.Mistral:
		b.WriteString("[TOOL_CALLS][")
		for i, c := range calls {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(callText(c.name, c.args))
		}
		b.WriteString("]")
	case detect.DeepSeek:
		b.WriteString(dsCallsBegin)
		for _, c := range calls {
			b.WriteString(dsCallBegin + c.name + dsSep + objectText(c.args, ": ", ", ") + dsCallEnd)
		}
		b.WriteString(dsCallsEnd)
	case detect.Harmony:
		harmonyText(&b, calls)
	case detect.DSML:
		dsmlText(&b, calls)
	case detect.KimiK2:
		b.WriteString(kimiSectionBegin)
		for i, c := range calls {
			b.WriteString(kimiCallBegin + "functions." + c.name + ":" + strconv.Itoa(i) + kimiArgBegin +
				objectText(c.args, ": ", ", ") + kimiCallEnd)
		}
		b.WriteString(kimiSectionEnd)
	case detect.KimiK3:
		writeKimiK3Calls(&b, calls)
	case detect.MiniMaxM3:
		writeMiniMaxM3Calls(&b, calls)
	default:
		for i, c := range calls {
			if i > 0 {
				b.WriteString("\n")
			}
			blockText(&b, f, c)
		}
	}
	return b.String()
}

// xmlText writes calls as one xml <tool_use> block.
func xmlText(b *strings.Builder, calls []call) {
	b.WriteString("<tool_use>\n")
	for _, c := range calls {
		b.WriteString("<invoke name=\"" + c.name + "\">\n")
		for _, a := range c.args {
			b.WriteString("<parameter name=\"" + a.name + "\">" + text(a.value) + "</parameter>\n")
		}
		b.WriteString("</invoke>\n")
	}
	b.WriteString("</tool_use>")
}

// pythonicText writes calls as one pythonic list.
func pythonicText(b *strings.Builder, calls []call) {
	b.WriteString("[")
	for i, c := range calls {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.name + "(")
		for j, a := range c.args {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.name + "=" + pyLiteral(a.value))
		}
		b.WriteString(")")
	}
	b.WriteString("]")
}

// harmonyText writes calls as harmony commentary messages, one per call:
// the model stops at <|call|>.
func harmonyText(b *strings.Builder, calls []call) {
	for i, c := range calls {
		if i > 0 {
			b.WriteString(hmStart + "assistant")
		}
		b.WriteString(hmChannel + "commentary to=functions." + c.name + " " + hmConstrain + "json" + hmMessage +
			objectText(c.args, ": ", ", ") + hmCall)
	}
}

// blockText writes c as one block of a format that has a block per call.
func blockText(b *strings.Builder, f detect.Format, c call) {
	switch f {
	case detect.ToolRequest:
		b.WriteString("<<<[TOOL_REQUEST]>>>\ntool_name:「始」" + c.name + "「末」")
		for _, a := range c.args {
			b.WriteString(",\n" + a.name + ":" + delimit(text(a.value)))
		}
		b.WriteString("\n<<<[END_TOOL_REQUEST]>>>")
	case detect.Qwen3Coder:
		// Each value on lines of its own: the detector strips the one
		// newline on each side that the template adds.
		b.WriteString("<tool_call>\n<function=" + c.name + ">\n")
		for _, a := range c.args {
			b.WriteString("<parameter=" + a.name + ">\n" + text(a.value) + "\n</parameter>\n")
		}
		b.WriteString("</function>\n</tool_call>")
	case detect.Gemma4:
		gemmaCallText(b, c)
	case detect.GLM:
		b.WriteString("<tool_call>" + c.name + "\n")
		for _, a := range c.args {
			b.WriteString("<arg_key>" + a.name + "</arg_key>\n<arg_value>" + text(a.value) + "</arg_value>\n")
		}
		b.WriteString("</tool_call>")
	default: // detect.Hermes, and detect.Auto, which is taught as hermes
		b.WriteString("<tool_call>\n" + callText(c.name, c.args) + "\n</tool_call>")
	}
}

// dsmlText writes calls as DeepSeek V3.2's encoding renders them: each
// tag on a line of its own, a string value raw with string="true", any
// other as JSON with string="false".
func dsmlText(b *strings.Builder, calls []call) {
	b.WriteString(dsmlCalls + "\n")
	for _, c := range calls {
		b.WriteString(dsmlInvoke + ` name="` + c.name + "\">\n")
		for _, a := range c.args {
			str := "false"
			if strings.HasPrefix(a.value, `"`) {
				str = "true"
			}
			b.WriteString(dsmlParam + ` name="` + a.name + `" string="` + str + `">` + text(a.value) + dsmlParamEnd + "\n")
		}
		b.WriteString(dsmlInvokeEnd + "\n")
	}
	b.WriteString(dsmlCallsEnd)
}

// delimit wraps a tool_request value, in the escape form when the value
// itself contains 「末」.
func delimit(v string) string {
	if strings.Contains(v, "「末」") {
		return "「始ESCAPE」" + v + "「末ESCAPE」"
	}
	return "「始」" + v + "「末」"
}

// callText is {"name": …, "arguments": {…}}, spaced like the documented
// examples and the Hermes, Qwen and Mistral chat templates (Python's
// json.dumps, which their tojson filter calls).
func callText(name string, args []arg) string {
	return `{"name": ` + quote(name) + `, "arguments": ` + objectText(args, ": ", ", ") + "}"
}

// objectText writes args as a JSON object in their order.
func objectText(args []arg, colon, comma string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, a := range args {
		if i > 0 {
			b.WriteString(comma)
		}
		b.WriteString(quote(a.name))
		b.WriteString(colon)
		b.WriteString(a.value)
	}
	b.WriteByte('}')
	return b.String()
}

// text is how a value is written in the formats whose values are raw text
// (xml, tool_request, qwen3_coder, glm): a string as itself, anything else
// as JSON.
func text(value string) string {
	if strings.HasPrefix(value, `"`) {
		var s string
		if json.Unmarshal([]byte(value), &s) == nil {
			return s
		}
	}
	return value
}

// quote returns s as a JSON string. HTML escaping is off: "<" must stay
// readable to the model, and markers in untrusted strings are defused by
// Neutralize instead.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
