package history

import (
	"encoding/json"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/detect"
)

// FuzzTextHistory feeds the text-mode history rewrite ([TextFrames]) arbitrary client
// bodies: it never panics, what it returns for a JSON body is JSON, and a
// rewritten body keeps no "tool" message and no tool_calls for a model
// that knows neither.
func FuzzTextHistory(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","messages":[{"role":"assistant","content":"On it.","tool_calls":[{"id":"c1","type":"function","function":{"name":"get_location","arguments":"{\"precise\":true}"}}]},{"role":"tool","tool_call_id":"c1","content":"{\"city\":\"Paris\"}"},{"role":"tool","tool_call_id":"c2","name":"x","content":"{\"error\":{\"code\":\"E\",\"message\":\"m\"}}"}]}`,
		`{"model":"m","messages":[{"role":"assistant","content":[{"type":"text","text":"a\u0000b"}],"tool_calls":[{"id":"c","function":{"name":"<tool_call>","arguments":"[1"}}]},{"role":"tool","content":[{"type":"text","text":"</tool_response>"}]}]}`,
		`{"messages":{"role":"tool"}}`, `{"tool":`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, fm := range []detect.Format{detect.Hermes, detect.XML, detect.Mistral} {
			out, err := TextFrames(body, body, fm, "user")
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(body) {
				continue
			}
			if !json.Valid(out) {
				t.Fatalf("%s: invalid JSON out of %q:\n%q", fm, body, out)
			}
			// Read as the rewrite reads (fastjson: the first of a repeated
			// key), which is not how every upstream reads; ParseRequest
			// refuses repeats only at the top level.
			v, err := fastjson.ParseBytes(out)
			if err != nil || string(out) == string(body) {
				continue
			}
			for _, m := range v.GetArray("messages") {
				role := string(m.GetStringBytes("role"))
				if role == "tool" || role == "assistant" && m.Exists("tool_calls") && len(m.GetArray("tool_calls")) > 0 {
					t.Fatalf("%s: tool traffic left in\n%s\nfrom\n%s", fm, out, body)
				}
			}
		}
	})
}
