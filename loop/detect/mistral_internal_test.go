package detect

import "testing"

// Bodies are what follows [TOOL_CALLS].
func TestParseMistral(t *testing.T) {
	weather := `{"city":"San Francisco","state":"CA","unit":"celsius"}`
	for _, tc := range []struct {
		name, body string
		calls      []want
		errName    string
	}{
		// vLLM's pre-v11 cases.
		{"v3 list", `[{"name": "add", "arguments":{"a": 3.5, "b": 4}}]`, []want{{"add", `{"a":3.5,"b":4}`}}, ""},
		{"blank after the marker", ` [{"name": "get_current_weather", "arguments":{"city": "San Francisco", "state": "CA", "unit": "celsius"}}]`,
			[]want{{"get_current_weather", weather}}, ""},
		{"arguments before name", `[{"arguments":{"name": "John Doe"}, "name": "get_age"}]`, []want{{"get_age", `{"name":"John Doe"}`}}, ""},
		{"several calls", `[{"name": "add", "arguments": {"a": 3.5, "b": 4}}, {"name": "get_current_weather", "arguments":{"city": "San Francisco", "state": "CA", "unit": "celsius"}}]`,
			[]want{{"add", `{"a":3.5,"b":4}`}, {"get_current_weather", weather}}, ""},
		// Nemo and Magistral add a 9-character id.
		{"Nemo id", `[{"name":"search","arguments":{"q":"x"},"id":"abc123def"}]`, []want{{"search", `{"q":"x"}`}}, ""},
		{"a single object", `{"name": "search", "arguments": {"q": "x"}}`, []want{{"search", `{"q":"x"}`}}, ""},
		{"arguments as a string", `[{"name": "search", "arguments": "{\"q\": \"x\"}"}]`, []want{{"search", `{"q":"x"}`}}, ""},
		{"no arguments key", `[{"name": "noop"}]`, []want{{"noop", `{}`}}, ""},
		{"trailing commas repaired", `[{"name": "search", "arguments": {"q": "x",},},]`, []want{{"search", `{"q":"x"}`}}, ""},
		{"unicode and escapes", `[{"name": "search", "arguments": {"q": "café \"東京\" \u00e9"}}]`, []want{{"search", `{"q":"café \"東京\" \u00e9"}`}}, ""},
		// v11+: one call per marker.
		{"v11 NAME[ARGS]", `get_weather[ARGS]{"city": "Paris", "days": 3}`, []want{{"get_weather", `{"city":"Paris","days":3}`}}, ""},
		{"v11 with a call id", `get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}`, []want{{"get_weather", `{"city":"Paris"}`}}, ""},
		{"special tokens stripped (vLLM's test)", `add_this_and_that{"a": 3.5, "b": 4}`, []want{{"add_this_and_that", `{"a":3.5,"b":4}`}}, ""},
		{"v11 empty arguments", `noop[ARGS]{}`, []want{{"noop", `{}`}}, ""},
		{"v11 nested and brackets in strings", `run[ARGS]{"cmd": "echo '}]'", "env": {"A": [1, {"b": null}]}}`,
			[]want{{"run", `{"cmd":"echo '}]'","env":{"A":[1,{"b":null}]}}`}}, ""},
		{"v11 arguments as a string", `search[ARGS]"{\"q\": \"x\"}"`, []want{{"search", `{"q":"x"}`}}, ""},
		{"v11 blanks around [ARGS]", "search [ARGS] {\"q\": \"x\"}\n", []want{{"search", `{"q":"x"}`}}, ""},
		{"v11 hyphenated name", `get-weather[ARGS]{"city": "Paris"}`, []want{{"get-weather", `{"city":"Paris"}`}}, ""},
		// Broken.
		{"empty", "  ", nil, ""},
		{"not JSON after [", `[not json at all`, nil, ""},
		{"a list of numbers", `[1, 2]`, nil, ""},
		{"a call without a name", `[{"arguments": {"q": "x"}}]`, nil, ""},
		{"second call broken", `[{"name": "search", "arguments": {}}, {"name": "get_weather", "arguments": 3}]`, nil, "search"},
		{"v11 arguments not an object", `search[ARGS][1, 2]`, nil, "search"},
		{"v11 arguments missing", `search[ARGS]`, nil, "search"},
		// A null the model never wrote is invented content, not form.
		{"v11 missing value refused", `search[ARGS]{"q": }`, nil, "search"},
		{"v11 broken JSON", `search[ARGS]{:}`, nil, "search"},
		{"v11 text after the arguments", `search[ARGS]{"q": 1} trailing`, nil, "search"},
		{"v11 id without [ARGS] or JSON", `search[CALL_ID]abc`, nil, "search"},
		{"v11 text after the name", `search the web`, nil, "search"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkParsed(t, tc.body, parseMistral(tc.body), tc.calls, tc.errName, false)
		})
	}
}

// mistralStart gets s from the first non-blank byte after the marker.
func TestMistralStart(t *testing.T) {
	for _, tc := range []struct {
		s       string
		res, at int
	}{
		{`[{"name"`, startOK, 0},
		{`{"name"`, startOK, 0},
		{"get_weather[ARGS]", startOK, 0},
		{"get_weather[CALL_ID]", startOK, 0},
		{"get_weather{", startOK, 0},
		{"get_weather {", startOK, 0},
		{"get_weather", startMore, 0},
		{"get_weather[", startMore, 0},
		{"get_weather[AR", startMore, 0},
		{"get_weather[CALL", startMore, 0},
		{"get_weather ", startMore, 0},
		{"is the marker", startNo, 3},
		{"get_weather[ARX", startNo, 14},
		{"get_weather[x]", startNo, 12},
		{"get_weather(city", startNo, 11},
		{"\"quoted\"", startNo, 0},
		{". done", startNo, 0},
		{"ab:", startNo, 2},
	} {
		res, at := mistralStart(tc.s)
		if res != tc.res || res == startNo && at != tc.at {
			t.Errorf("mistralStart(%q) = %d, %d; want %d, %d", tc.s, res, at, tc.res, tc.at)
		}
		checkStartPrefixes(t, mistralStart, tc.s)
	}
}

func TestSniffMistral(t *testing.T) {
	for body, name := range map[string]string{
		`[{"name": "search", "argu`: "search",
		`get_weather[ARGS]{"ci`:     "get_weather",
		`get_weather[CALL_`:         "get_weather",
		"get_wea":                   "",
		"":                          "",
	} {
		if got := sniffMistral(body); got.name != name {
			t.Errorf("sniffMistral(%q).name = %q, want %q", body, got.name, name)
		}
	}
}

// FuzzParseMistral: see checkFuzzParsed.
func FuzzParseMistral(f *testing.F) {
	for _, s := range []string{
		`[{"name": "add", "arguments":{"a": 3.5, "b": 4}}]`,
		`get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}`,
		`search[ARGS]"{\"q\": \"x\"}"`,
		`add{"a": 1}`, `[1, 2]`, `{"name": "x"}`, `x[ARGS]{`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		checkFuzzParsed(t, body, parseMistral(body))
	})
}
