package textmode

import (
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/toolhost"
)

// writeFrame writes result r, the i-th of its round (last: the final one),
// in the frame of format f. Every model-family dialect uses the frame its
// family's chat template renders tool messages in (see dialects for the
// templates); since all results of a round go in one message, each frame
// also names its call where the template's frame has room for it.
func writeFrame(b *strings.Builder, f detect.Format, i int, r toolhost.Result, last bool) {
	switch f {
	case detect.XML:
		writeXMLFrame(b, r)
	case detect.ToolRequest:
		writeToolRequestFrame(b, r)
	case detect.JSON:
		writeJSONEntry(b, r, last)
	case detect.Llama3JSON, detect.Pythonic:
		// Llama's templates put a result bare in an ipython message. One
		// JSON object per line keeps several results apart, and keeps
		// whatever a result holds inside a JSON string or nested value,
		// never at the start of a line where these detectors read. Its
		// "tool" key is not "name", so a result line never has the shape
		// of a call.
		b.WriteString(resultObject(r, "tool") + "\n")
	case detect.Mistral:
		writeMistralFrame(b, r)
	case detect.DeepSeek:
		// V3.1's template: <｜tool▁output▁begin｜>content<｜tool▁output▁end｜>,
		// no newline inside, no wrapper around several.
		b.WriteString(dsOutputBegin + resultObject(r, "name") + dsOutputEnd + "\n")
	case detect.KimiK2:
		writeKimiFrame(b, i, r)
	case detect.Harmony:
		writeHarmonyFrame(b, r)
	case detect.DSML:
		writeDSMLFrame(b, i, r, last)
	case detect.Gemma4:
		writeGemmaFrame(b, r)
	case detect.KimiK3:
		writeKimiK3Frame(b, i, r)
	default:
		// hermes, qwen3_coder, glm and minimax_m3: Qwen's and GLM-4.5/4.6's templates
		// write "<tool_response>\n" + content + "\n</tool_response>".
		b.WriteString("<tool_response>\n" + resultObject(r, "name") + "\n</tool_response>\n")
	}
}

func writeXMLFrame(b *strings.Builder, r toolhost.Result) {
	b.WriteString("<tool_result")
	if name := label(r.Name); name != "" {
		b.WriteString(` name="` + attrEscaper.Replace(name) + `"`)
	}
	b.WriteString(` call_id="` + attrEscaper.Replace(label(r.CallID)) + "\">\n")
	b.WriteString(textBody(r))
	b.WriteString("\n</tool_result>\n")
}

func writeToolRequestFrame(b *strings.Builder, r toolhost.Result) {
	b.WriteString("[TOOL_RESULT]")
	if name := label(r.Name); name != "" {
		b.WriteString(" name: " + name + ",")
	}
	b.WriteString(" call_id: " + label(r.CallID) + "\n")
	b.WriteString(textBody(r))
	b.WriteString("\n[END_TOOL_RESULT]\n")
}

// resultObject is a result as one compact JSON object: the tool's name
// under nameKey (left out when the call had none), the call id, and
// "content" or "error". Hermes bodies are this object because
// <tool_response> blocks holding JSON are what Qwen and Hermes chat
// templates produce for tool messages; the object adds the name and call
// id those templates leave out, so several results in one message stay
// tied to their calls.
func resultObject(r toolhost.Result, nameKey string) string {
	var b strings.Builder
	b.WriteByte('{')
	if name := label(r.Name); name != "" {
		b.WriteString(quote(nameKey) + ":" + quote(name) + ",")
	}
	b.WriteString(`"call_id":` + quote(label(r.CallID)) + ",")
	if e := errorOf(r); e != nil {
		b.WriteString(`"error":` + errorJSON(e))
	} else {
		b.WriteString(`"content":` + jsonBody(r))
	}
	b.WriteByte('}')
	return b.String()
}

func writeJSONEntry(b *strings.Builder, r toolhost.Result, last bool) {
	b.WriteString(`{"call_id":` + quote(label(r.CallID)))
	if name := label(r.Name); name != "" {
		b.WriteString(`,"name":` + quote(name))
	}
	if e := errorOf(r); e != nil {
		b.WriteString(`,"error":` + errorJSON(e))
	} else {
		// A JSON result goes in as a string holding the JSON: raw, its
		// objects would sit bare in the text a json-taught detector scans,
		// and a model echoing a result that holds {"name":…,"arguments":…}
		// would make a call.
		body := jsonBody(r)
		if r.IsJSON {
			body = quote(body)
		}
		b.WriteString(`,"result":` + body)
	}
	b.WriteString("}")
	if !last {
		b.WriteString(",")
	}
	b.WriteString("\n")
}

// writeMistralFrame follows the v3-tokenizer template byte for byte:
// [TOOL_RESULTS]{"content": …, "call_id": "…"}[/TOOL_RESULTS]. The content
// is a JSON value (the template pastes it unquoted, which is JSON only when
// the tool returned JSON); an error is the content.
func writeMistralFrame(b *strings.Builder, r toolhost.Result) {
	content := ""
	if e := errorOf(r); e != nil {
		content = `{"error":` + errorJSON(e) + "}"
	} else {
		content = jsonBody(r)
	}
	b.WriteString(`[TOOL_RESULTS]{"content": ` + content + `, "call_id": ` + quote(label(r.CallID)) + "}[/TOOL_RESULTS]\n")
}

// writeKimiFrame follows Kimi K2's template, a tool message being
// "## Return of " + its call id + "\n" + its content. Frames are apart by a
// blank line; a forged "## Return of" inside a result is defused by
// [Neutralize].
func writeKimiFrame(b *strings.Builder, i int, r toolhost.Result) {
	if i > 0 {
		b.WriteString("\n")
	}
	id, _ := callRef(detect.KimiK2, i, r)
	b.WriteString(kimiReturn + id + "\n")
	b.WriteString(textBody(r))
	b.WriteString("\n")
}

// writeDSMLFrame follows DeepSeek V3.2's encoding: the round's results in
// one <function_results> block, each "<result>content</result>" on a line
// of its own. The content is the result object, which names the call the
// encoding's bare content leaves to its order.
func writeDSMLFrame(b *strings.Builder, i int, r toolhost.Result, last bool) {
	if i == 0 {
		b.WriteString(dsmlResults + "\n")
	}
	b.WriteString("<result>" + resultObject(r, "name") + "</result>\n")
	if last {
		b.WriteString(dsmlResultsEnd + "\n")
	}
}

// callRef is how the feedback of format f names the i-th call of a round:
// the id its frame shows. In kimi_k2 that is the id the model wrote,
// functions.NAME:IDX with IDX the call's place in the round, as the prompt
// teaches (a call that could not be read has no name, so our call id
// stands in); named reports that the id already holds the tool's name.
// Everywhere else it is our call id.
func callRef(f detect.Format, i int, r toolhost.Result) (id string, named bool) {
	if f == detect.KimiK2 {
		if name := label(r.Name); name != "" {
			return "functions." + name + ":" + strconv.Itoa(i), true
		}
	}
	return label(r.CallID), false
}

// writeHarmonyFrame follows gpt-oss's template, a tool message being
// <|start|>functions.NAME to=assistant<|channel|>commentary<|message|> +
// its content + <|end|>, one per result. A call that could not be read has
// no name: our call id stands in. <|end|> goes on a line of its own,
// unlike the template's: a result ending in a code fence (```) must close
// it, or the rest of the message reads as code. A forged <|end|> or
// <|start|> inside a result is defused by [Neutralize].
func writeHarmonyFrame(b *strings.Builder, r toolhost.Result) {
	name := label(r.Name)
	if name == "" {
		name = label(r.CallID)
	}
	b.WriteString(hmStart + "functions." + name + " to=assistant" + hmChannel + "commentary" + hmMessage)
	b.WriteString(textBody(r))
	b.WriteString("\n" + hmEnd + "\n")
}
