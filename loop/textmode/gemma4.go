package textmode

import (
	"encoding/json"
	"strings"

	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/toolhost"
)

// Gemma 4's tokens, as its chat template writes them: a call
// <|tool_call>call:NAME{…}<tool_call|>, a result
// <|tool_response>response:NAME{…}<tool_response|>, every string between
// <|"|> tokens.
const (
	gemmaCallOpen      = "<|tool_call>"
	gemmaCallClose     = "<tool_call|>"
	gemmaResponseOpen  = "<|tool_response>"
	gemmaResponseClose = "<tool_response|>"
	gemmaQuote         = `<|"|>`
)

// gemmaDialect is Gemma 4's chat template: calls in its object notation
// (bare keys, strings between <|"|>), each result a
// <|tool_response>response:NAME{value:…}<tool_response|> block, as the
// template renders a tool message. Its thought channel is reasoning and,
// like <think>, never run.
var gemmaDialect = dialect{
	how: "Write each call as " + gemmaCallOpen + "call:NAME{…}" + gemmaCallClose + ": the tool's name after call:, then its arguments between braces as key:value pairs separated by commas.",
	rules: []string{
		"Write keys bare, without quotes. Write every string between " + gemmaQuote + " tokens, as in city:" + gemmaQuote + "Paris" + gemmaQuote + "; write numbers, true, false and null bare; nest objects in braces and arrays in brackets.",
		"To make several calls at once, write several " + gemmaCallOpen + "…" + gemmaCallClose + " blocks, one per call. Their results come back in the order written.",
	},
	fence: "Write calls as plain text: never inside a code fence (```), and never inside your thought channel (<|channel>thought…<channel|>) or <think>…</think>, where they are not run.",
	frame: "each in a " + gemmaResponseOpen + "response:NAME{…}" + gemmaResponseClose + " block",
}

func init() { dialects[detect.Gemma4] = gemmaDialect }

// gemmaCallText writes c in Gemma 4's notation.
func gemmaCallText(b *strings.Builder, c call) {
	b.WriteString(gemmaCallOpen + "call:" + c.name + "{")
	for i, a := range c.args {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(a.name + ":" + gemmaValue(a.value))
	}
	b.WriteString("}" + gemmaCallClose)
}

// gemmaValue turns a JSON value into Gemma 4's notation, keys in the order
// written: strings between <|"|>, keys bare, the rest as JSON writes it.
// Text that is not JSON is written as a string.
func gemmaValue(value string) string {
	dec := json.NewDecoder(strings.NewReader(value))
	dec.UseNumber()
	var b strings.Builder
	if !gemmaTokens(dec, &b) {
		return gemmaQuote + value + gemmaQuote
	}
	return b.String()
}

// gemmaTokens writes the next value of dec to b; false when it is not JSON.
func gemmaTokens(dec *json.Decoder, b *strings.Builder) bool {
	tok, err := dec.Token()
	if err != nil {
		return false
	}
	switch t := tok.(type) {
	case json.Delim:
		closer := map[json.Delim]string{'{': "}", '[': "]"}[t]
		b.WriteString(string(t))
		for n := 0; dec.More(); n++ {
			if n > 0 {
				b.WriteByte(',')
			}
			if t == '{' {
				k, err := dec.Token()
				key, ok := k.(string)
				if err != nil || !ok {
					return false
				}
				b.WriteString(key + ":")
			}
			if !gemmaTokens(dec, b) {
				return false
			}
		}
		if _, err := dec.Token(); err != nil {
			return false
		}
		b.WriteString(closer)
	case string:
		b.WriteString(gemmaQuote + t + gemmaQuote)
	case json.Number:
		b.WriteString(t.String())
	case bool:
		b.WriteString(map[bool]string{true: "true", false: "false"}[t])
	case nil:
		b.WriteString("null")
	}
	return true
}

// writeGemmaFrame writes a result as Gemma 4's template renders a tool
// message: response:NAME{value:…}, the result a string (its JSON compacted
// and neutralized), or error:… for a failed call; a result of several
// lines ends with a line break. A call whose name could
// not be read is named by its call id.
func writeGemmaFrame(b *strings.Builder, r toolhost.Result) {
	name := label(r.Name)
	if name == "" {
		name = label(r.CallID)
	}
	b.WriteString(gemmaResponseOpen + "response:" + name + "{")
	if e := errorOf(r); e != nil {
		b.WriteString("error:" + gemmaQuote + errorJSON(e) + gemmaQuote)
	} else {
		body := textBody(r)
		if s := jsonBody(r); r.IsJSON && !strings.HasPrefix(s, `"`) {
			body = s // compact, every string neutralized
		}
		if strings.Contains(body, "\n") {
			// Its last line ends before the closing <|"|>, so that a
			// code fence a result closes on its last line stays closed.
			body += "\n"
		}
		b.WriteString("value:" + gemmaQuote + body + gemmaQuote)
	}
	b.WriteString("}" + gemmaResponseClose + "\n")
}
