package loop

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

func TestAppendJSONString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{`quote " and \ backslash`, `"quote \" and \\ backslash"`},
		{"line\nbreak\r\ttab", `"line\nbreak\r\ttab"`},
		{"esc \x1b bell \a nul \x00", `"esc \u001b bell \u0007 nul \u0000"`},
		{"<tag> & é 😀", `"<tag> & é 😀"`},
		{"bad \xff byte", `"bad \ufffd byte"`},
		{"sep \u2028 \u2029", `"sep \u2028 \u2029"`},
	}
	for _, tt := range tests {
		got := string(AppendJSONString(nil, tt.in))
		if got != tt.want {
			t.Errorf("AppendJSONString(%q) = %s, want %s", tt.in, got, tt.want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("%s is not valid JSON: %v", got, err)
		}
	}
}

// FuzzAppendJSONString: whatever the input, the output is valid JSON that
// decodes to the input (with invalid UTF-8 replaced).
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\x00\x1f", "\xff\xfe", "é😀\u2028", "plain", `quote " and \ back`,
		"line\nbreak\r\ttab\b\f", "\x00\x01\x1f\x7f", "<tag> & amp", "é ü 日本", "\u2028\u2029", "a\xe2\x80", "🙂"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendJSONString(nil, s)
		// Byte for byte what encoding/json writes with HTML escaping off:
		// every protocol's events are held to its output.
		var std bytes.Buffer
		enc := json.NewEncoder(&std)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		if want := bytes.TrimSuffix(std.Bytes(), []byte("\n")); !bytes.Equal(out, want) {
			t.Fatalf("%q -> %s, encoding/json writes %s", s, out, want)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%q -> %s: %v", s, out, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("%q -> %s -> %q", s, out, back)
		}
	})
}

// TestRawValue: a pre-encoded string set into a parsed chunk is written out
// verbatim, so control characters stay valid JSON (fastjson's own escaping
// would write \x1b).
func TestRawValue(t *testing.T) {
	var p fastjson.Parser
	var a fastjson.Arena
	v, _ := p.Parse(`{"delta":{"content":"x"}}`)
	v.Get("delta").Set("content", rawValue(&a, string(AppendJSONString(nil, "a\x1bb"))))
	got := string(v.MarshalTo(nil))
	if got != `{"delta":{"content":"a\u001bb"}}` {
		t.Errorf("got %s", got)
	}
}

func TestSumUsage(t *testing.T) {
	got := sumUsage([]string{
		`{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":2}}`,
		`{"prompt_tokens":30,"completion_tokens":3,"total_tokens":33,"prompt_tokens_details":{"cached_tokens":8},"completion_tokens_details":{"reasoning_tokens":1}}`,
	})
	want := `{"prompt_tokens":40,"completion_tokens":8,"total_tokens":48,"prompt_tokens_details":{"cached_tokens":10},"completion_tokens_details":{"reasoning_tokens":1}}`
	if got != want {
		t.Errorf("sumUsage\n got %s\nwant %s", got, want)
	}
}

func TestBlank(t *testing.T) {
	tests := []struct {
		delta   string
		visible string
		want    bool
	}{
		{`{}`, "", true},
		{`{"content":""}`, "", true},
		{`{"content":"","reasoning_content":null}`, "", true},
		{`{"content":"x"}`, "x", false},
		{`{"content":"<tool_call>…"}`, "", true},
		{`{"reasoning_content":"thinking"}`, "", false},
		{`{"role":"assistant"}`, "", false},
		{`{"tool_calls":[]}`, "", false},
	}
	for _, tt := range tests {
		var p fastjson.Parser
		v, _ := p.Parse(tt.delta)
		if got := blank(v, tt.visible); got != tt.want {
			t.Errorf("blank(%s, %q) = %v, want %v", tt.delta, tt.visible, got, tt.want)
		}
	}
}

func TestCollector(t *testing.T) {
	c := &Collector{Events: true}
	for _, ch := range []string{
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_content":"hm"},"finish_reason":null}]}`,
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}`,
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","choices":[{"index":0,"delta":{}}],"toolstream":{"event":"tool.started","name":"t","round":1}}`,
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}`,
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"client_tool","arguments":""}}]},"finish_reason":null}]}`,
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]},"finish_reason":null}]}`,
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"id":"x1","object":"chat.completion.chunk","created":5,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`,
	} {
		if err := c.Send([]byte(ch)); err != nil {
			t.Fatal(err)
		}
	}
	c.Done()
	want := `{"id":"x1","object":"chat.completion","created":5,"model":"m","choices":[{"finish_reason":"tool_calls","index":0,"logprobs":null,"message":{"content":"Hello","reasoning_content":"hm","role":"assistant","tool_calls":[{"id":"call_a","type":"function","function":{"name":"client_tool","arguments":"{\"a\":1}"}}]}}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3},"system_fingerprint":"fp","toolstream":{"events":[{"event":"tool.started","name":"t","round":1}]}}`
	if got := string(c.Completion()); got != want {
		t.Errorf("Completion\n got %s\nwant %s", got, want)
	}
}

// TestEventFields: tool events always carry call_id and name (docs/stream.md),
// even for a block too malformed to name its tool; other events do not.
func TestEventFields(t *testing.T) {
	tests := []struct {
		ev   Event
		want string
	}{
		{Event{Event: "tool.started", CallID: "call_1", Round: 1},
			`{"event":"tool.started","call_id":"call_1","name":"","round":1}`},
		{Event{Event: "tool.finished", CallID: "call_1", Name: "t", Round: 2, Status: "ok", Result: json.RawMessage(`{"a":1}`)},
			`{"event":"tool.finished","call_id":"call_1","name":"t","round":2,"status":"ok","result":{"a":1}}`},
		{Event{Event: "round.started", Round: 2}, `{"event":"round.started","round":2}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.ev)
		if err != nil || string(got) != tt.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tt.ev, got, err, tt.want)
		}
	}
}
