package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

var k3Taught = detect.Options{Taught: detect.KimiK3, Known: known}

// Kimi K3's XTML tokens.
const (
	k3TO = "<|open|>tools<|sep|>"
	k3TC = "<|close|>tools<|sep|>"
	k3CC = "<|close|>call<|sep|>"
	k3AC = "<|close|>argument<|sep|>"
	k3RO = "<|open|>response<|sep|>"
	k3RC = "<|close|>response<|sep|>"
	k3MC = "<|close|>message<|sep|>"
)

// k3Call writes one call element: tool, index, then key, type, value
// triples.
func k3Call(tool, index string, kv ...string) string {
	s := `<|open|>call tool="` + tool + `" index="` + index + `"<|sep|>`
	for i := 0; i+2 < len(kv); i += 3 {
		s += `<|open|>argument key="` + kv[i] + `" type="` + kv[i+1] + `"<|sep|>` + kv[i+2] + k3AC
	}
	return s + k3CC
}

func TestKimiK3(t *testing.T) {
	// vLLM's kimi_k3_tool_parser.py module doc, with our tool names:
	// a string raw, an object as JSON, the layout it shows.
	doc := k3TO + "\n  " + k3Call("search", "1", "q", "string", "print(1)", "opts", "object", `{"a":1}`) + "\n" + k3TC
	// SGLang's test_kimik3_detector.py: test_detect_and_parse_multiple_calls.
	two := k3TO + k3Call("search", "1", "q", "string", "a") + k3Call("search", "2", "q", "string", "b") + k3TC
	// SGLang's test_non_string_arg_json_decoding: a number, a boolean, and
	// an object that is not JSON, kept as text.
	typed := k3TO + k3Call("search", "1", "n", "number", "42", "flag", "boolean", "true", "bad", "object", "{not json") + k3TC
	// SGLang's test_attr_unescaping_and_raw_string_args: attributes
	// unescaped, string values raw.
	escaped := k3TO + `<|open|>call tool="search" index="1"<|sep|><|open|>argument key="q&amp;a" type="string"<|sep|>say &quot;hi&quot;` + k3AC + k3CC + k3TC
	// SGLang's test_detect_and_parse_unclosed_tools_section: a section the
	// reply ends in keeps its complete calls.
	open := k3TO + k3Call("search", "1", "q", "string", "x")
	// A leaked K3 reply seen by an agent runtime (kimi model runtime XTML
	// recovery test): text, the section, text after.
	leaked := k3TO + k3Call("search", "1", "q", "string", "hello") + k3TC
	// A server's K3 test (parse_full): unicode, an integer.
	unicode := k3TO + k3Call("get_weather", "1", "city", "string", "北京", "days", "integer", "2") + k3TC
	// The whole arguments as one json element (a K3 server's forced
	// XTML grammar for tool_choice required).
	jsonForm := k3TO + `<|open|>call tool="get_weather" index="1"<|sep|><|open|>json type="object"<|sep|>{"city":"杭州"}<|close|>json<|sep|>` + k3CC + k3TC
	nested := k3TO + k3Call("search", "1", "q", "string", "line1\nline2 \"quoted\" \\ end", "filter", "object", `{"tags": ["a", "b"], "range": {"from": 1, "to": null}}`) + k3TC
	cut := k3TO + k3Call("search", "1", "q", "string", "x") + `<|open|>call tool="get_weather" index="2"<|sep|><|open|>argument key="city" type="string"<|sep|>Pa`
	unknown := k3TO + k3Call("rm", "1", "path", "string", "/") + k3TC
	spaced := "<|open|> tools <|sep|>"
	runSteps(t, []stepCase{
		{
			name:  "vLLM's module doc example",
			opts:  k3Taught,
			steps: []step{feed("Running it.\n"+doc+"\nDone.", "Running it.\n\nDone.", call(detect.KimiK3, "search", `{"q":"print(1)","opts":{"a":1}}`, doc)), end("")},
		},
		{
			name: "two calls in one section",
			opts: k3Taught,
			steps: []step{feed(two, ""), end("",
				call(detect.KimiK3, "search", `{"q":"a"}`, two),
				call(detect.KimiK3, "search", `{"q":"b"}`, two))},
		},
		{
			name:  "typed values are JSON, one that is not stays text",
			opts:  k3Taught,
			steps: []step{feed(typed, ""), end("", call(detect.KimiK3, "search", `{"n":42,"flag":true,"bad":"{not json"}`, typed))},
		},
		{
			name:  "attributes unescaped, string values raw",
			opts:  k3Taught,
			steps: []step{feed(escaped, ""), end("", call(detect.KimiK3, "search", `{"q&a":"say &quot;hi&quot;"}`, escaped))},
		},
		{
			name:  "a section the reply ends in keeps its complete calls",
			opts:  k3Taught,
			steps: []step{feed(open, ""), end("", call(detect.KimiK3, "search", `{"q":"x"}`, open))},
		},
		{
			name: "a section left open: the complete call runs, the cut one is a PARSE_ERROR",
			opts: k3Taught,
			steps: []step{feed(cut, ""), end("",
				call(detect.KimiK3, "search", `{"q":"x"}`, cut),
				errCall(detect.KimiK3, "get_weather", cut, detect.ErrUnclosed))},
		},
		{
			name:  "mid-text, text after",
			opts:  k3Taught,
			steps: []step{feed("Sure, one moment."+leaked+"Done.", "Sure, one moment.Done.", call(detect.KimiK3, "search", `{"q":"hello"}`, leaked)), end("")},
		},
		{
			name:  "after reasoning",
			opts:  k3Taught,
			steps: []step{feed("<think>which tool?</think>\n"+unicode, "<think>which tool?</think>\n"), end("", call(detect.KimiK3, "get_weather", `{"city":"北京","days":2}`, unicode))},
		},
		{
			name:  "the arguments as one json element",
			opts:  k3Taught,
			steps: []step{feed(jsonForm, ""), end("", call(detect.KimiK3, "get_weather", `{"city":"杭州"}`, jsonForm))},
		},
		{
			name:  "nested JSON, escapes and newlines",
			opts:  k3Taught,
			steps: []step{feed(nested, ""), end("", call(detect.KimiK3, "search", `{"q":"line1\nline2 \"quoted\" \\ end","filter":{"tags": ["a", "b"], "range": {"from": 1, "to": null}}}`, nested))},
		},
		{
			// A leaked K3 reply an agent runtime recovered (its test "kimi
			// model runtime XTML recovery"), the prompt having opened the
			// response channel: its close before the section is cut, the
			// message's close after it goes with the section.
			name: "the response channel's close before, the message's close after",
			opts: k3Taught,
			steps: []step{
				feed("Sure, one moment."+k3RC+leaked+k3MC, "Sure, one moment.", call(detect.KimiK3, "search", `{"q":"hello"}`, leaked+k3MC)),
				end(""),
			},
		},
		{
			name: "the message's close, then text: the calls go when it is known",
			opts: k3Taught,
			steps: []step{
				feed(leaked+"\n", ""),
				feed(k3MC+" ok", " ok", call(detect.KimiK3, "search", `{"q":"hello"}`, leaked+"\n"+k3MC)),
				end(""),
			},
		},
		{
			// vLLM's _strip_response_content: the channel's tokens are
			// no content, with a section after them or not.
			name:  "the response channel's tokens without a section are cut",
			opts:  k3Taught,
			steps: []step{feed(k3RO+"Hi"+k3RC+"there"+k3MC, "Hithere"), end("")},
		},
		{
			name:  "the channel's tokens in every mode, split anywhere",
			opts:  native,
			steps: []step{feed(k3RO+"Hi", "Hi"), feed(" <|close|>resp", " "), feed("onse<|sep|>", ""), feed(k3MC, ""), end("")},
		},
		{
			name:  "in a <think> span too, as reasoning would carry them",
			opts:  hermesTaught,
			steps: []step{feed("<think>plan"+k3RC+"</think>"+k3RO+"ok", "<think>plan</think>ok"), end("")},
		},
		{
			name:  "a fenced example keeps them",
			opts:  k3Taught,
			steps: []step{feed("```\n"+k3RC+"\n```\n", "```\n"+k3RC+"\n```\n"), end("")},
		},
		{
			name: "fed in pieces",
			opts: k3Taught,
			steps: []step{
				feed("x <|open|>to", "x "),
				feed(two[len("<|open|>to"):len(two)-4], ""),
				feed(two[len(two)-4:]+" ok", " ok", call(detect.KimiK3, "search", `{"q":"a"}`, two), call(detect.KimiK3, "search", `{"q":"b"}`, two)),
				end(""),
			},
		},
		{
			name:  "taught: unknown tool is a call",
			opts:  k3Taught,
			steps: []step{feed(unknown, ""), end("", call(detect.KimiK3, "rm", `{"path":"/"}`, unknown))},
		},
		{
			name:  "native mode: known tool is a call, unknown is text",
			opts:  native,
			steps: []step{feed(unknown+two, unknown), end("", call(detect.KimiK3, "search", `{"q":"a"}`, two), call(detect.KimiK3, "search", `{"q":"b"}`, two))},
		},
		{
			name:  "prose naming the tokens",
			opts:  k3Taught,
			steps: []step{feed("K3 opens "+k3TO+" then <|open|>call.", "K3 opens "+k3TO+" then <|open|>call."), end("")},
		},
		{
			name:  "spaces inside the opening token pair are prose",
			opts:  k3Taught,
			steps: []step{feed(spaced+"x", spaced+"x"), end("")},
		},
	})
}

func TestKimiK3Errors(t *testing.T) {
	for _, tc := range []struct {
		name, block, wantName string
	}{
		{"a call without its tool", k3TO + `<|open|>call index="1"<|sep|>` + k3CC + k3TC, ""},
		{"an argument without its close", k3TO + `<|open|>call tool="search" index="1"<|sep|><|open|>argument key="q" type="string"<|sep|>x` + k3CC + k3TC, "search"},
		{"text between calls", k3TO + k3Call("search", "1", "q", "string", "a") + "and more" + k3TC, "search"},
		{"a broken json element", k3TO + `<|open|>call tool="search" index="1"<|sep|><|open|>json type="object"<|sep|>{broken<|close|>json<|sep|>` + k3CC + k3TC, "search"},
		{"a key given twice", k3TO + k3Call("search", "1", "q", "string", "a", "q", "string", "b") + k3TC, "search"},
	} {
		runSteps(t, []stepCase{{
			name:  tc.name,
			opts:  k3Taught,
			steps: []step{feed(tc.block, ""), end("", errCall(detect.KimiK3, tc.wantName, tc.block, detect.ErrMalformed))},
		}})
	}
	// SGLang's test_stream_end_reports_truncated_tools_section.
	trunc := k3TO + `<|open|>call tool="get_weather" index="1"<|sep|>`
	runSteps(t, []stepCase{
		{
			name:  "a call cut off at End",
			opts:  k3Taught,
			steps: []step{feed(trunc, ""), end("", errCall(detect.KimiK3, "get_weather", trunc, detect.ErrUnclosed))},
		},
		{
			name:  "unclosed at End in another format, no name: text",
			opts:  hermesTaught,
			steps: []step{feed(k3TO+`<|open|>call tool="get_wea`, ""), end(k3TO + `<|open|>call tool="get_wea`)},
		},
	})
}

func FuzzKimiK3(f *testing.F) { fuzzDetector(f, taughtWithLimit(detect.KimiK3)) }

func BenchmarkFeedPlainKimiK3(b *testing.B)   { benchFeed(b, prose, k3Taught) }
func BenchmarkFeedDenseLTKimiK3(b *testing.B) { benchFeed(b, denseLT, k3Taught) }
