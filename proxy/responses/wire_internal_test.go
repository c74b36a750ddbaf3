package responses

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// stdString is s as encoding/json writes it with HTML escaping off.
func stdString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// FuzzAppendString holds the hand-written string encoder of the delta
// events to encoding/json: the same bytes for any text, valid UTF-8 or
// not.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " and \ back`, "line\nbreak\r\ttab\b\f", "\x00\x01\x1f\x7f",
		"<tag> & amp", "é ü 日本", "\u2028\u2029", "\xff\xfe bad", "a\xe2\x80", "🙂"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendString(nil, s)
		if want := stdString(s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, encoding/json writes %s", s, got, want)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil || utf8.ValidString(s) && back != s {
			t.Fatalf("appendString(%q) = %s reads back as %q, %v", s, got, back, err)
		}
	})
}

// TestAppendDelta: the hand-written delta events are the JSON the
// structs of the other events would make.
func TestAppendDelta(t *testing.T) {
	for _, tc := range []struct {
		typ     string
		content bool
		want    string
	}{
		{evTextDelta, true, `{"type":"response.output_text.delta","sequence_number":7,"item_id":"msg_1","output_index":2,"content_index":0,"delta":"a \"b\"\n","logprobs":[]}`},
		{evReasoningDelta, true, `{"type":"response.reasoning_text.delta","sequence_number":7,"item_id":"msg_1","output_index":2,"content_index":0,"delta":"a \"b\"\n"}`},
		{evArgsDelta, false, `{"type":"response.function_call_arguments.delta","sequence_number":7,"item_id":"msg_1","output_index":2,"delta":"a \"b\"\n"}`},
	} {
		got := string(appendDelta(nil, tc.typ, 7, "msg_1", 2, tc.content, "a \"b\"\n"))
		if got != tc.want || !json.Valid([]byte(got)) {
			t.Errorf("%s:\n got %s\nwant %s", tc.typ, got, tc.want)
		}
	}
}
