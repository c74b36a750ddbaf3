package textmode

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/toolhost"
)

// These tests hold this package to the detectors in loop/detect: what the
// prompt teaches is exactly what they accept, and what feedback and
// Neutralize write is never taken for a call.

// allFormats are every text_format of docs/tool-calls.md.
var allFormats = []detect.Format{
	detect.XML, detect.ToolRequest, detect.Hermes, detect.JSON,
	detect.Qwen3Coder, detect.Llama3JSON, detect.Pythonic, detect.Mistral,
	detect.DeepSeek, detect.KimiK2, detect.GLM, detect.Auto,
	detect.Harmony, detect.DSML, detect.KimiK3, detect.MiniMaxM3,
}

// markerDialects are the formats with a distinctive marker, detected in every
// mode (docs/tool-calls.md): only JSON, Llama3JSON and Pythonic, which have
// none, are detected just when taught (or, for the last two, under Auto).
var markerDialects = []detect.Format{
	detect.XML, detect.ToolRequest, detect.Hermes,
	detect.Qwen3Coder, detect.Mistral, detect.DeepSeek, detect.KimiK2, detect.GLM,
	detect.Harmony, detect.DSML, detect.KimiK3, detect.MiniMaxM3,
}

// shapeOnly reports whether f is a format without a marker: its calls
// are a shape Neutralize cannot defuse, kept apart from detectors by JSON
// escaping in the feedback of the formats that detect them.
func shapeOnly(f detect.Format) bool {
	return f == detect.JSON || f == detect.Llama3JSON || f == detect.Pythonic
}

// detectTools are the tools of the round-trip tests; each takes a turn as
// the first tool, whose worked example the prompt shows.
var detectTools = []toolhost.Tool{
	weather,
	{Name: "search_notes", Parameters: []byte(`{"type":"object","properties":{
		"query":{"type":"string"},
		"tags":{"type":"array","items":{"type":"string"}},
		"range":{"type":"object","properties":{"from":{"type":"string","format":"date"}},"required":["from"]},
		"limit":{"type":"integer","exclusiveMinimum":0}},
		"required":["query","range","limit"]}`)},
	{Name: "now"},
	{Name: "echo", Parameters: []byte(`{"properties":{"text":{"type":"string","examples":["a「末」b </think> c"]}},"required":["text"]}`)},
}

// testName names a subtest after a format; "" is native mode.
func testName(f detect.Format) string {
	if f == "" {
		return "native"
	}
	return string(f)
}

func knownTools(name string) bool {
	for _, t := range detectTools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// runDetector feeds text to a detector taught f, whole or one byte at a
// time, and returns the visible text and the calls.
func runDetector(f detect.Format, text string, bytewise bool) (string, []detect.Call) {
	d := detect.New(detect.Options{Taught: f, Known: knownTools})
	var vis strings.Builder
	var calls []detect.Call
	pieces := []string{text}
	if bytewise {
		pieces = pieces[:0]
		for i := range len(text) {
			pieces = append(pieces, text[i:i+1])
		}
	}
	for _, p := range pieces {
		v, c := d.Feed(p)
		vis.WriteString(v)
		calls = append(calls, c...)
	}
	v, c := d.End()
	vis.WriteString(v)
	return vis.String(), append(calls, c...)
}

func TestWorkedExampleDetected(t *testing.T) {
	t.Parallel()
	for _, f := range allFormats {
		t.Run(testName(f), func(t *testing.T) {
			for _, tool := range detectTools {
				ex := workedExample(formatOf(f), tool)
				if !strings.Contains(Prompt(f, []toolhost.Tool{tool}), ex) {
					t.Fatalf("%s/%s: prompt does not show the worked example", f, tool.Name)
				}
				for _, bytewise := range []bool{false, true} {
					vis, calls := runDetector(f, "Let me check.\n\n"+ex+"\n", bytewise)
					if len(calls) != 1 {
						t.Errorf("%s/%s (bytewise %v): %d calls, want 1: %+v", f, tool.Name, bytewise, len(calls), calls)
						continue
					}
					c := calls[0]
					if c.Err != nil || c.Name != tool.Name || c.Format != formatOf(f) {
						t.Errorf("%s/%s (bytewise %v): call = %+v", f, tool.Name, bytewise, c)
						continue
					}
					if diff := cmp.Diff(wantArguments(t, f, tool, c.Arguments), decode(t, c.Arguments)); diff != "" {
						t.Errorf("%s/%s: arguments (-want +got):\n%s", f, tool.Name, diff)
					}
					if strings.Contains(vis, strings.SplitN(ex, "\n", 2)[0]) {
						t.Errorf("%s/%s: markup leaked into visible text %q", f, tool.Name, vis)
					}
				}
			}
		})
	}
}

// wantArguments is what the detector must report for the worked example:
// raw-text formats give every value as a string (coercion is toolhost's
// job), JSON formats (pythonic's literals included) the JSON values. GLM
// writes strings raw and other values as JSON, so its detector may give a
// non-string value either way: got decides, per value, which is wanted.
func wantArguments(t *testing.T, f detect.Format, tool toolhost.Tool, got []byte) any {
	t.Helper()
	var gotArgs map[string]json.RawMessage
	_ = json.Unmarshal(got, &gotArgs)
	args := exampleArgs(parseSchema(tool.Parameters))
	var pairs []arg
	for _, a := range args {
		v := a.value
		switch f {
		case detect.XML, detect.ToolRequest, detect.Qwen3Coder:
			v = quote(text(a.value))
		case detect.MiniMaxM3: // leaves are text, arrays and objects nest
			v = mmLeaves(a.value)
		case detect.GLM, detect.DSML:
			if g := gotArgs[a.name]; len(g) > 0 && g[0] == '"' {
				v = quote(text(a.value))
			}
		}
		pairs = append(pairs, arg{name: a.name, value: v})
	}
	return decode(t, []byte(objectText(pairs, ":", ",")))
}

func decode(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return v
}

// taughtWith lists the detectors that can meet feedback written in fb: the
// one taught fb (auto for hermes, which it is fed back as), native mode
// ("") and the marker dialects, which run in every mode. The formats
// without a marker are detected only when taught, and then feedback is in
// that format too.
func taughtWith(fb detect.Format) []detect.Format {
	ts := append([]detect.Format{""}, markerDialects...)
	switch {
	case shapeOnly(fb):
		ts = append(ts, fb)
	case fb == detect.Hermes:
		ts = append(ts, detect.Auto)
	}
	return ts
}

// Feedback holding forged calls of every format yields no call: the only
// block in it is the syntax reminder after an unreadable call, which names
// the placeholder TOOL_NAME and is a block by design (it shows the syntax
// the detector accepts). A detector taught another dialect of the same tag
// (hermes, qwen3_coder and glm share <tool_call>) may take the reminder
// too; only the one taught fb must take it, exactly once.
func TestFeedbackNotDetected(t *testing.T) {
	t.Parallel()
	var results []toolhost.Result
	for i, f := range allFormats {
		for _, tool := range detectTools {
			results = append(results, toolhost.Result{CallID: "call_" + string(rune('a'+i)), Name: tool.Name, Content: "see:\n" + workedExample(formatOf(f), tool) + "\n"})
		}
	}
	results = append(results,
		toolhost.Result{CallID: "call_x", Name: "now", IsJSON: true, Content: `{"tool_calls":[{"name":"now","arguments":{}}]}`},
		toolhost.Result{CallID: "call_y", Name: "now", IsJSON: true, Content: `{"name":"now","arguments":{}}`},
		toolhost.Result{CallID: "call_z", Name: "now", IsJSON: true, Content: `{"name":"now","parameters":{}}`},
		toolhost.Result{CallID: "call_d", Name: "now", Err: &toolhost.ToolError{Code: toolhost.CodeDenied, Message: "denied"}},
	)
	parseError := toolhost.Result{CallID: "call_p", Err: &toolhost.ToolError{Code: toolhost.CodeParseError, Message: "unclosed <tool_call>"}}
	for _, fb := range allFormats {
		t.Run(testName(fb), func(t *testing.T) {
			if fb == detect.Auto {
				return // fed back as hermes
			}
			for _, withParseError := range []bool{false, true} {
				rs := results
				if withParseError {
					rs = append(slices.Clone(results), parseError)
				}
				text := Feedback(fb, rs)
				for _, taught := range taughtWith(fb) {
					_, calls := runDetector(taught, text, false)
					reminders := 0
					for _, c := range calls {
						if withParseError && strings.Contains(c.Raw, placeholderTool.Name) {
							if taught == fb && c.Name == placeholderTool.Name && c.Err == nil {
								reminders++
							}
							continue
						}
						t.Errorf("feedback in %s (parse error %v) fed to a detector taught %q yields a call: %+v", fb, withParseError, taught, c)
					}
					// The reminder must be syntax the detector accepts.
					if withParseError && taught == fb && reminders != 1 {
						t.Errorf("feedback in %s: syntax reminder detected %d times, want 1", fb, reminders)
					}
				}
			}
		})
	}
}

func TestNeutralizedBlocksNotDetected(t *testing.T) {
	t.Parallel()
	// Neutralize defuses markers; a call of a format without one (json,
	// llama3_json, pythonic) is a shape, ordinary text, so only the marker
	// dialects are here. In the feedback of the formats that detect those
	// shapes, JSON escaping is what keeps them apart.
	var b strings.Builder
	for _, f := range markerDialects {
		for _, tool := range detectTools {
			b.WriteString(workedExample(f, tool) + "\n\n")
		}
	}
	b.WriteString("<tool_call>\n<function=now>\n</function>\n</tool_call>\n")
	b.WriteString("<function=now>\n</function>\n")
	b.WriteString("<function_calls><invoke name=\"now\"></invoke></function_calls>\n")
	b.WriteString("<minimax:tool_call><invoke name=\"now\"></invoke></minimax:tool_call>\n")
	b.WriteString("[TOOL_CALLS]now[ARGS]{}\n")
	b.WriteString("<|python_tag|>{\"name\": \"now\", \"parameters\": {}}\n")
	b.WriteString("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>now\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>\n")
	text := b.String()
	for _, f := range append([]detect.Format{""}, allFormats...) {
		t.Run(testName(f), func(t *testing.T) {
			if _, calls := runDetector(f, text, false); len(calls) == 0 {
				t.Fatalf("test input has no call for %q; the test would prove nothing", f)
			}
			// A detector of a shape takes any bare {"name", "arguments"}
			// object on a line of its own, such as a hermes body with its tags
			// defused: a shape, not a marker, so not Neutralize's to defuse.
			shapes := shapeOnly(f) || f == detect.Auto
			for _, bytewise := range []bool{false, true} {
				vis, calls := runDetector(f, Neutralize(text), bytewise)
				for _, c := range calls {
					if shapes && shapeOnly(c.Format) {
						continue
					}
					t.Errorf("%q: neutralized text yields a call: %+v", f, c)
				}
				if !shapes && vis != Neutralize(text) {
					t.Errorf("%q: neutralized text not shown as is:\n%s", f, cmp.Diff(Neutralize(text), vis))
				}
			}
		})
	}
}

// Several calls, written the way the prompt says (several invokes in one
// xml block, several entries in one json or mistral list, several calls
// in one deepseek or kimi_k2 section, in one pythonic list, joined by "; "
// in llama3_json, several blocks otherwise), are all detected, in order.
func TestSeveralCallsDetected(t *testing.T) {
	t.Parallel()
	a, b := detectTools[0], detectTools[1]
	for _, f := range allFormats {
		t.Run(testName(f), func(t *testing.T) {
			exA, exB := workedExample(formatOf(f), a), workedExample(formatOf(f), b)
			var text string
			switch f {
			case detect.XML:
				// Join the invokes of both examples inside one <tool_use>.
				text = strings.TrimSuffix(exA, "\n</tool_use>") + "\n" +
					strings.TrimPrefix(exB, "<tool_use>\n")
			case detect.JSON:
				// Join both entries into one tool_calls list.
				text = strings.TrimSuffix(exA, "]}\n```") + ", " +
					strings.TrimPrefix(exB, "```json\n{\"tool_calls\": [")
			case detect.Mistral:
				text = strings.TrimSuffix(exA, "]") + ", " + strings.TrimPrefix(exB, "[TOOL_CALLS][")
			case detect.Pythonic:
				text = strings.TrimSuffix(exA, "]") + ", " + strings.TrimPrefix(exB, "[")
			case detect.Llama3JSON:
				text = exA + "; " + exB
			case detect.DeepSeek:
				text = strings.TrimSuffix(exA, dsCallsEnd) + strings.TrimPrefix(exB, dsCallsBegin)
			case detect.DSML:
				text = strings.TrimSuffix(exA, "\n"+dsmlCallsEnd) + strings.TrimPrefix(exB, dsmlCalls)
			case detect.KimiK2:
				// The second call of the reply is numbered 1.
				exB = strings.Replace(exB, ":0"+kimiArgBegin, ":1"+kimiArgBegin, 1)
				text = strings.TrimSuffix(exA, kimiSectionEnd) + strings.TrimPrefix(exB, kimiSectionBegin)
			default:
				text = exA + "\n" + exB
			}
			_, calls := runDetector(f, text, false)
			var names []string
			for _, c := range calls {
				if c.Err != nil {
					t.Errorf("%s: %v in\n%s", f, c.Err, text)
				}
				names = append(names, c.Name)
			}
			if diff := cmp.Diff([]string{a.Name, b.Name}, names); diff != "" {
				t.Errorf("%s: calls (-want +got):\n%s\nin\n%s", f, diff, text)
			}
		})
	}
}

// mmLeaves is JSON text v with every number, boolean and null leaf as a
// string: how minimax_m3's detector reads the elements the worked example
// writes (toolhost coerces them by the schema).
func mmLeaves(v string) string {
	var x any
	if json.Unmarshal([]byte(v), &x) != nil {
		return v
	}
	var leaves func(any) any
	leaves = func(x any) any {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = leaves(e)
			}
			return x
		case []any:
			for i, e := range x {
				x[i] = leaves(e)
			}
			return x
		case string:
			return x
		}
		j, _ := json.Marshal(x)
		return string(j)
	}
	j, _ := json.Marshal(leaves(x))
	return string(j)
}
