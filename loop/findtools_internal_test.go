package loop

import (
	"maps"
	"slices"
	"testing"
)

func TestSearchArgs(t *testing.T) {
	for _, tc := range []struct {
		args  string
		query string
		limit int
		bad   bool
	}{
		{`{"query":"send email"}`, "send email", findToolsDefault, false},
		{`{"query":"send email","limit":3}`, "send email", 3, false},
		{`{"query":"send email","limit":"7"}`, "send email", 7, false}, // text formats write strings
		{`{"query":"x","limit":0}`, "x", 1, false},
		{`{"query":"x","limit":500}`, "x", findToolsMax, false},
		{`{"query":"x","limit":null}`, "x", findToolsDefault, false},
		{`{"query":"x","limit":"many"}`, "x", 0, true},
		{`{"query":"x","limit":[1]}`, "x", 0, true},
		{`{"query":"  "}`, "", 0, true},
		{`{"query":3}`, "", 0, true},
		{`{}`, "", 0, true},
		{`[]`, "", 0, true},
		{`not json`, "", 0, true},
	} {
		q, l, msg := searchArgs([]byte(tc.args))
		if (msg != "") != tc.bad || !tc.bad && (q != tc.query || l != tc.limit) {
			t.Errorf("searchArgs(%s) = %q, %d, %q", tc.args, q, l, msg)
		}
	}
}

func TestCalledBefore(t *testing.T) {
	known := map[string]bool{"get_weather": true, "get_weather_pro": true, "send_email": true, "notes_add": true, "list": true}
	body := `{"messages":[
		{"role":"user","content":"send_email to bob, and list things"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"notes_add is mentioned by a tool"},
		{"role":"tool","tool_call_id":"c2","name":"notes_add","content":"{}"},
		{"role":"assistant","content":[{"type":"text","text":"<function=get_weather_pro>\n</function>"}]},
		{"role":"assistant","content":"listing is not list_all"}]}`
	got := slices.Sorted(maps.Keys(calledBefore([]byte(body), known)))
	want := []string{"get_weather", "get_weather_pro", "notes_add"}
	if !slices.Equal(got, want) {
		t.Errorf("calledBefore = %q, want %q: the user's words and tool output call nothing, and a name is taken only whole", got, want)
	}
	if got := calledBefore([]byte(`not json`), known); len(got) != 0 {
		t.Errorf("calledBefore(not json) = %v", got)
	}
}
