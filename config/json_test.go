package config_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
)

// decodeTool decodes a JSON tools entry onto the file's defaults.
func decodeTool(t *testing.T, src string) (config.Tool, []string) {
	t.Helper()
	tool := config.DefaultToolEntry()
	err := tool.UnmarshalJSON([]byte(src))
	if err == nil {
		return tool, nil
	}
	var ce *config.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *config.Error", err)
	}
	var got []string
	for _, p := range ce.Problems {
		got = append(got, p.String())
	}
	return tool, got
}

func TestToolJSON(t *testing.T) {
	t.Parallel()
	got, problems := decodeTool(t, `{
		"name": "get_weather",
		"description": "Current weather for a city.",
		"parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
		"webhook": {"url": "http://127.0.0.1:9000/weather", "headers": {"Authorization": "Bearer ${TOKEN}"},
		            "secret": "whsec_abc", "timeout": "10s"},
		"idempotent": true,
		"approval": "always",
		"max_result_bytes": "1MiB",
		"redact": ["password"]
	}`)
	if problems != nil {
		t.Fatalf("problems: %q", problems)
	}
	want := config.Tool{
		Name:        "get_weather",
		Description: "Current weather for a city.",
		// Compacted, key order kept: the order the model reads properties in.
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		Webhook: &config.Webhook{
			URL: "http://127.0.0.1:9000/weather",
			// Taken as written: ${VAR} is not expanded from the proxy's
			// environment for a runtime tool.
			Headers: map[string]config.Secret{"Authorization": "Bearer ${TOKEN}"},
			Secret:  "whsec_abc",
			Timeout: 10 * time.Second,
		},
		Idempotent:     true,
		Approval:       "always",
		MaxResultBytes: config.MiB,
		Redact:         []string{"password"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded tool (-want +got):\n%s", diff)
	}
	if p := config.CheckTool(got, ""); p != nil {
		t.Errorf("CheckTool: %v", p)
	}
}

// TestToolJSONDefaults: what a body leaves out keeps the file's defaults,
// and a size may be a plain number of bytes.
func TestToolJSONDefaults(t *testing.T) {
	t.Parallel()
	got, problems := decodeTool(t, `{"name":"t","webhook":{"url":"http://h/"},"max_result_bytes":4096,"approval":null}`)
	if problems != nil {
		t.Fatalf("problems: %q", problems)
	}
	want := config.DefaultToolEntry()
	want.Name, want.Webhook, want.MaxResultBytes = "t", &config.Webhook{URL: "http://h/"}, 4*config.KiB
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded tool (-want +got):\n%s", diff)
	}
}

// TestToolJSONProblems pins each decoding problem: every one at once, in
// the order written, each naming its field.
func TestToolJSONProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"not JSON", `{"name":`, []string{`not valid JSON: unexpected end of JSON input`}},
		{"not JSON, starting like null", `name=t`, []string{`not valid JSON: invalid character 'a' in literal null (expecting 'u')`}},
		{"not an object", `["get_weather"]`, []string{`want a JSON object, got a list`}},
		{"unknown fields", `{"nmae":"t","webhook":{"url":"http://h/","tmeout":"1s"},"executor":"x"}`, []string{
			`nmae: unknown field (did you mean name?)`,
			`webhook.tmeout: unknown field (did you mean timeout?)`,
			`executor: unknown field (want one of approval, description, idempotent, max_result_bytes, name, parameters, redact, webhook)`}},
		{"duplicate field", `{"name":"a","name":"b"}`, []string{`name: duplicate field`}},
		{"wrong types", `{"name":5,"idempotent":"yes","redact":["a",1],"webhook":{"headers":{"X":true},"secret":[]}}`, []string{
			`name: want a string, got a number`,
			`idempotent: want true or false, got a string`,
			`redact[1]: want a string, got a number`,
			`webhook.headers.X: want a string, got true or false`,
			`webhook.secret: want a string, got a list`}},
		{"parameters not an object", `{"parameters":"{}"}`, []string{
			`parameters: want a JSON Schema object with type: object, got a string`}},
		{"webhook not an object", `{"webhook":"http://h/"}`, []string{`webhook: want a JSON object, got a string`}},
		{"durations", `{"webhook":{"timeout":10}}`, []string{`webhook.timeout: duration "10" has no unit (write 10s, 10m or 10h)`}},
		{"duration with days", `{"webhook":{"timeout":"1d"}}`, []string{`webhook.timeout: duration "1d": Go durations have no day unit (write 24h)`}},
		{"duration object", `{"webhook":{"timeout":{}}}`, []string{`webhook.timeout: want a duration like "10s", got an object`}},
		{"size fraction", `{"max_result_bytes":1.5}`, []string{`max_result_bytes: size "1.5" has a fraction (write a whole number in a smaller unit, e.g. 1536KiB)`}},
		{"size negative", `{"max_result_bytes":-1}`, []string{`max_result_bytes: size "-1" is negative (want a byte count like 64KiB)`}},
		{"size unit", `{"max_result_bytes":"64K"}`, []string{`max_result_bytes: size "64K" has unknown unit "K" (want B, KiB, MiB, GiB, TiB, or KB, MB, GB, TB for powers of 1000)`}},
		{"size bool", `{"max_result_bytes":true}`, []string{`max_result_bytes: want a size like "64KiB" or a number of bytes, got true or false`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, problems := decodeTool(t, tc.src)
			if diff := cmp.Diff(tc.want, problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(config.DefaultToolEntry(), got); diff != "" {
				t.Errorf("the tool changed although decoding failed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckTool: one entry is checked by the file's rules, with paths under
// the prefix it is given.
func TestCheckTool(t *testing.T) {
	t.Parallel()
	tool, problems := decodeTool(t, `{"name":"get weather","parameters":{"type":"string"},
		"webhook":{"url":"ftp://h/","headers":{"X-A":"1","x-a":"2"},"timeout":"-1s"},
		"approval":"sometimes","max_result_bytes":0,"redact":[""]}`)
	if problems != nil {
		t.Fatalf("decoding: %q", problems)
	}
	var got []string
	for _, p := range config.CheckTool(tool, "") {
		got = append(got, p.String())
	}
	want := []string{
		`name: "get weather" must be 1 to 64 letters, digits, '_' or '-' (OpenAI's rule for function names)`,
		`parameters: type must be object (tool arguments are a JSON object), got "string"`,
		`webhook.url: "ftp://h/" must start with http:// or https://`,
		`webhook.headers.x-a: same header as X-A (header names are case-insensitive)`,
		`webhook.timeout: must be positive, got -1s (leave it out to use loop.tool_timeout)`,
		`approval: unknown value "sometimes" (want never, always or admin)`,
		`max_result_bytes: must be positive, got 0B`,
		`redact[0]: empty field name (want an argument name like password)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}

	missing := config.CheckTool(config.DefaultToolEntry(), "tools[3]")
	got = nil
	for _, p := range missing {
		got = append(got, p.String())
	}
	want = []string{
		`tools[3].name: required (what the model calls, e.g. get_weather)`,
		`tools[3].webhook: required (a webhook with at least url: http://…)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestToolJSONThroughEncodingJSON: encoding/json uses the same decoding.
func TestToolJSONThroughEncodingJSON(t *testing.T) {
	t.Parallel()
	var v struct{ Tools []config.Tool }
	err := json.Unmarshal([]byte(`{"Tools":[{"name":"t","webhook":{"url":"http://h/","timeout":"2s"},"max_result_bytes":"2KiB"}]}`), &v)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Tools) != 1 || v.Tools[0].Webhook.Timeout != 2*time.Second || v.Tools[0].MaxResultBytes != 2*config.KiB {
		t.Errorf("got %+v", v.Tools)
	}
	err = json.Unmarshal([]byte(`{"Tools":[{"nmae":"t"}]}`), &v)
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Problems[0].Path != "nmae" {
		t.Errorf("got error %v, want a *config.Error naming nmae", err)
	}
}
