package textmode

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/toolhost"
)

var weather = toolhost.Tool{
	Name: "get_weather",
	Parameters: []byte(`{"type":"object","properties":{
		"city":{"type":"string","examples":["Paris"]},
		"days":{"type":"integer","minimum":1,"maximum":7},
		"units":{"type":"string","enum":["metric","imperial"]}},
		"required":["city"]}`),
}

// The worked examples are the syntax SPEC §5 shows for each format.
func TestWorkedExample(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		f    detect.Format
		want string
	}{
		{detect.XML, `<tool_use>
<invoke name="get_weather">
<parameter name="city">Paris</parameter>
<parameter name="days">3</parameter>
</invoke>
</tool_use>`},
		{detect.ToolRequest, `<<<[TOOL_REQUEST]>>>
tool_name:「始」get_weather「末」,
city:「始」Paris「末」,
days:「始」3「末」
<<<[END_TOOL_REQUEST]>>>`},
		{detect.Hermes, `<tool_call>
{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}
</tool_call>`},
		{detect.JSON, "```json\n" + `{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]}` + "\n```"},
	} {
		got := workedExample(tc.f, weather)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.f, diff)
		}
		if p := Prompt(tc.f, []toolhost.Tool{weather}); !strings.Contains(p, "\n\n"+got+"\n\n") {
			t.Errorf("%s: Prompt does not show the worked example on its own lines:\n%s", tc.f, p)
		}
	}
}

func TestExampleValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		schema string
		want   string
	}{
		{`{"type":"string"}`, `"example my param"`},
		{`{"type":"string","format":"date"}`, `"2025-01-31"`},
		{`{"type":"string","format":"email"}`, `"user@example.com"`},
		{`{"type":"string","enum":["b","a"]}`, `"b"`},
		{`{"type":"string","default":"d","enum":["b","d"]}`, `"d"`},
		{`{"type":"integer"}`, `3`},
		{`{"type":"integer","minimum":10}`, `10`},
		{`{"type":"integer","maximum":2}`, `2`},
		{`{"type":"integer","exclusiveMinimum":5}`, `6`},
		{`{"type":"integer","minimum":0.5}`, `3`},
		{`{"type":"integer","minimum":4.5}`, `5`},
		{`{"type":"number"}`, `1.5`},
		{`{"type":"number","maximum":1}`, `1`},
		{`{"type":"boolean"}`, `true`},
		{`{"type":["null","string"]}`, `null`},
		{`{"type":"array","items":{"type":"integer"}}`, `[3]`},
		{`{"type":"array"}`, `[]`},
		{`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"boolean"},"c":{"type":"number"}},"required":["c"]}`, `{"a": "example a", "c": 1.5}`},
		{`{"anyOf":[{"type":"integer"},{"type":"string"}]}`, `3`},
		{`{"const":"fixed"}`, `"fixed"`},
		{`{}`, `"example my param"`},
	} {
		got := exampleValue("my_param", parseSchema([]byte(tc.schema)), 0)
		if got != tc.want {
			t.Errorf("exampleValue(%s) = %s, want %s", tc.schema, got, tc.want)
		}
	}
}

func TestTypeName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		schema string
		want   string
	}{
		{`{"type":"string"}`, "string"},
		{`{"type":["string","null"]}`, "string or null"},
		{`{"type":"array","items":{"type":"array","items":{"type":"number"}}}`, "array of array of number"},
		{`{"properties":{"a":{"type":"integer"}},"required":["a"]}`, "object {a: integer (required)}"},
		{`{"type":"object"}`, "object"},
		{`{"oneOf":[{"type":"string"},{"type":"integer"}]}`, "string or integer"},
		{`{"enum":[1,2]}`, "number"},
		{`{"enum":["x"]}`, "string"},
		{`{}`, "any"},
		{`not json`, "any"},
	} {
		if got := parseSchema([]byte(tc.schema)).typeName(); got != tc.want {
			t.Errorf("typeName(%s) = %q, want %q", tc.schema, got, tc.want)
		}
	}
}

// A value containing 「末」 can only be written in the escape form.
func TestWorkedExampleEscapeForm(t *testing.T) {
	t.Parallel()
	tool := toolhost.Tool{Name: "echo", Parameters: []byte(`{"properties":{"text":{"type":"string","examples":["a「末」b"]}},"required":["text"]}`)}
	got := workedExample(detect.ToolRequest, tool)
	if want := "text:「始ESCAPE」a「末」b「末ESCAPE」\n"; !strings.Contains(got, want) {
		t.Errorf("got\n%s\nwant it to contain %q", got, want)
	}
}
