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

// The worked examples are the syntax docs/tool-calls.md shows for each format.
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
		{detect.Qwen3Coder, `<tool_call>
<function=get_weather>
<parameter=city>
Paris
</parameter>
<parameter=days>
3
</parameter>
</function>
</tool_call>`},
		{detect.Llama3JSON, `{"name": "get_weather", "parameters": {"city": "Paris", "days": 3}}`},
		{detect.Pythonic, `[get_weather(city="Paris", days=3)]`},
		{detect.Mistral, `[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]`},
		{detect.DeepSeek, "<\uFF5Ctool\u2581calls\u2581begin\uFF5C><\uFF5Ctool\u2581call\u2581begin\uFF5C>get_weather" +
			"<\uFF5Ctool\u2581sep\uFF5C>" + `{"city": "Paris", "days": 3}` +
			"<\uFF5Ctool\u2581call\u2581end\uFF5C><\uFF5Ctool\u2581calls\u2581end\uFF5C>"},
		{detect.KimiK2, `<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris", "days": 3}<|tool_call_end|><|tool_calls_section_end|>`},
		{detect.GLM, `<tool_call>get_weather
<arg_key>city</arg_key>
<arg_value>Paris</arg_value>
<arg_key>days</arg_key>
<arg_value>3</arg_value>
</tool_call>`},
		{detect.Harmony, `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris", "days": 3}<|call|>`},
		{detect.DSML, `<｜DSML｜function_calls>
<｜DSML｜invoke name="get_weather">
<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
<｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
</｜DSML｜invoke>
</｜DSML｜function_calls>`},
		{detect.Auto, `<tool_call>
{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}
</tool_call>`},
	} {
		got := workedExample(formatOf(tc.f), weather)
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

// Values the dialects write as raw text or as Python literals: strings
// bare (raw) or quoted (Python), everything else as JSON or its Python
// spelling, at any depth.
func TestWorkedExampleValueSpelling(t *testing.T) {
	t.Parallel()
	tool := toolhost.Tool{Name: "set", Parameters: []byte(`{"type":"object","properties":{
		"s":{"type":"string","examples":["two words \"q\" \\ ü"]},
		"b":{"type":"boolean","examples":[false]},
		"n":{"type":["null","string"]},
		"o":{"type":"object","examples":[{"k":[true,null,1.5e3],"e":{}}]},
		"l":{"type":"array","examples":[[]]}},
		"required":["s","b","n","o","l"]}`)}
	for _, tc := range []struct {
		f    detect.Format
		want string
	}{
		{detect.Pythonic, `[set(s="two words \"q\" \\ ü", b=False, n=None, o={"k": [True, None, 1.5e3], "e": {}}, l=[])]`},
		{detect.GLM, "<tool_call>set\n<arg_key>s</arg_key>\n<arg_value>two words \"q\" \\ ü</arg_value>\n" +
			"<arg_key>b</arg_key>\n<arg_value>false</arg_value>\n<arg_key>n</arg_key>\n<arg_value>null</arg_value>\n" +
			"<arg_key>o</arg_key>\n<arg_value>{\"k\":[true,null,1.5e3],\"e\":{}}</arg_value>\n" +
			"<arg_key>l</arg_key>\n<arg_value>[]</arg_value>\n</tool_call>"},
		{detect.DSML, "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"set\">\n" +
			"<｜DSML｜parameter name=\"s\" string=\"true\">two words \"q\" \\ ü</｜DSML｜parameter>\n" +
			"<｜DSML｜parameter name=\"b\" string=\"false\">false</｜DSML｜parameter>\n" +
			"<｜DSML｜parameter name=\"n\" string=\"false\">null</｜DSML｜parameter>\n" +
			"<｜DSML｜parameter name=\"o\" string=\"false\">{\"k\":[true,null,1.5e3],\"e\":{}}</｜DSML｜parameter>\n" +
			"<｜DSML｜parameter name=\"l\" string=\"false\">[]</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"},
		{detect.Qwen3Coder, "<tool_call>\n<function=set>\n<parameter=s>\ntwo words \"q\" \\ ü\n</parameter>\n" +
			"<parameter=b>\nfalse\n</parameter>\n<parameter=n>\nnull\n</parameter>\n" +
			"<parameter=o>\n{\"k\":[true,null,1.5e3],\"e\":{}}\n</parameter>\n<parameter=l>\n[]\n</parameter>\n</function>\n</tool_call>"},
	} {
		if got := workedExample(tc.f, tool); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.f, got, tc.want)
		}
	}
}

func TestPyLiteral(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`true`, `True`},
		{`false`, `False`},
		{`null`, `None`},
		{`-2.5e-3`, `-2.5e-3`},
		{`"a\nb\u2028"`, `"a\nb\u2028"`},
		{`"<tool_call>"`, `"<tool_call>"`},
		{`[true,[null],{"a":false}]`, `[True, [None], {"a": False}]`},
		{`{"true":"false"}`, `{"true": "false"}`},
		{`{}`, `{}`},
		{`not json`, `not json`},
	} {
		if got := pyLiteral(tc.in); got != tc.want {
			t.Errorf("pyLiteral(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
