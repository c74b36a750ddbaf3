package detect_test

import (
	"errors"
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// TestRepairNeverInvents holds the line lenient repair walks: form models
// get wrong is fixed (the call runs with the arguments shown), a value cut
// off or missing is never completed (the block is a PARSE_ERROR: an error
// call without arguments). Each case says which side it falls on. A fault
// probe had the first cut case reach its webhook as
// {"x":1,"s":"delete everything except"}.
func TestRepairNeverInvents(t *testing.T) {
	const form, cut = "form", "cut"
	hermes := func(body string) string { return "<tool_call>" + body + "</tool_call>" }
	for _, tc := range []struct {
		name string
		side string // form: repaired into args; cut: refused
		opts detect.Options
		in   string
		args string // form only
		err  error  // cut only: the sentinel wanted
	}{
		// Form: repaired.
		{"trailing commas", form, hermesTaught, hermes(`{"name": "search", "arguments": {"q": "a",},}`), `{"q":"a"}`, nil},
		{"single quotes and unquoted keys", form, hermesTaught, hermes(`{name: 'search', arguments: {q: 'it\'s'}}`), `{"q":"it's"}`, nil},
		{"Python constants", form, hermesTaught, hermes(`{"name": "search", "arguments": {"all": True, "n": None}}`), `{"all":true,"n":null}`, nil},
		{"missing final brace after a string", form, hermesTaught, hermes(`{"name": "search", "arguments": {"q": "a"}`), `{"q":"a"}`, nil},
		{"missing final brace after a closed number", form, hermesTaught, hermes(`{"name": "search", "arguments": {"n": 12}`), `{"n":12}`, nil},
		{"missing final braces after a literal", form, hermesTaught, hermes("{\"name\": \"search\", \"arguments\": {\"ok\": false\n"), `{"ok":false}`, nil},
		{"missing final braces after a closed list", form, hermesTaught, hermes(`{"name": "search", "arguments": {"l": [1, 2]`), `{"l":[1,2]}`, nil},
		{"a missing comma", form, hermesTaught, hermes(`{"name": "search" "arguments": {"q": "a"}}`), `{"q":"a"}`, nil},
		{"json mode: missing final brace at the end of the reply", form, jsonTaught, `{"name": "search", "arguments": {"q": "e"}`, `{"q":"e"}`, nil},

		// Cut: refused.
		{"the probe: a string without its closing quote", cut, hermesTaught,
			hermes(`{"name":"work","arguments":{"x":1,"s":"delete everything except`), "", detect.ErrMalformed},
		{"a single-quoted string without its closing quote", cut, hermesTaught, hermes(`{"name": "search", "arguments": {"q": 'rm -rf ./a`), "", detect.ErrMalformed},
		{"a key without its value at the end", cut, hermesTaught, hermes(`{"name": "search", "arguments": {"x": 1, "s":`), "", detect.ErrMalformed},
		{"a key without its value before the brace", cut, hermesTaught, hermes(`{"name": "search", "arguments": {"x": 1, "s": }}`), "", detect.ErrMalformed},
		{"a key without a colon", cut, hermesTaught, hermes(`{"name": "search", "arguments": {"x": 1, "s"`), "", detect.ErrMalformed},
		{"a comma at the end", cut, hermesTaught, hermes(`{"name": "search", "arguments": {"x": 1,`), "", detect.ErrMalformed},
		{"a number cut by the tag", cut, hermesTaught, hermes(`{"name": "search", "arguments": {"x": 12`), "", detect.ErrMalformed},
		{"a list cut by the tag", cut, hermesTaught, hermes(`{"name": "search", "arguments": {"l": [1, 2`), "", detect.ErrMalformed},
		{"a list cut after its last item", cut, hermesTaught, hermes(`{"name": "search", "arguments": {"l": [1, "b"`), "", detect.ErrMalformed},
		{"a literal cut", cut, hermesTaught, hermes(`{"name": "search", "arguments": {"ok": tru`), "", detect.ErrMalformed},
		{"an unquoted word at the end", cut, hermesTaught, hermes(`{"name": "search", "arguments": {"q": paris`), "", detect.ErrMalformed},
		{"an object cut after its brace", cut, hermesTaught, hermes(`{"name": "search", "arguments": {`), "", detect.ErrMalformed},
		{"an arguments string whose JSON is cut", cut, hermesTaught, hermes(`{"name": "search", "arguments": "{\"x\": 12"}`), "", detect.ErrMalformed},
		{"a list of calls cut", cut, hermesTaught, hermes(`[{"name": "search", "arguments": {}}`), "", detect.ErrMalformed},
		{"json mode: a number cut by the end of the reply", cut, jsonTaught, `{"name": "search", "arguments": {"x": 12`, "", detect.ErrUnclosed},
		{"json mode: a key cut by the end of the reply", cut, jsonTaught, `{"name": "search", "arguments": {"s":`, "", detect.ErrUnclosed},
		{"deepseek arguments cut", cut, deepseekTaught,
			"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>search<｜tool▁sep｜>{\"q\": \"unfin<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "", detect.ErrMalformed},
		{"kimi_k2 arguments cut", cut, kimiTaught,
			"<|tool_calls_section_begin|><|tool_call_begin|>functions.search:0<|tool_call_argument_begin|>{\"n\": 4<|tool_call_end|><|tool_calls_section_end|>", "", detect.ErrMalformed},
		{"mistral arguments cut", cut, mistralTaught, `[TOOL_CALLS]search[ARGS]{"q": "a", "n": }`, "", detect.ErrMalformed},
	} {
		t.Run(tc.side+": "+tc.name, func(t *testing.T) {
			vis, calls := run(tc.opts, []string{tc.in})
			if vis != "" {
				t.Errorf("visible = %q, want the block hidden", vis)
			}
			if len(calls) != 1 {
				t.Fatalf("calls = %+v, want one", calls)
			}
			c := calls[0]
			switch tc.side {
			case form:
				if c.Err != nil || string(c.Arguments) != tc.args {
					t.Errorf("got arguments %s, err %v; want %s repaired", c.Arguments, c.Err, tc.args)
				}
			case cut:
				if !errors.Is(c.Err, tc.err) || c.Arguments != nil {
					t.Errorf("got arguments %s, err %v; want no arguments and %v", c.Arguments, c.Err, tc.err)
				}
			}
			checkSplits(t, tc.opts, tc.in, vis, calls)
		})
	}
}
