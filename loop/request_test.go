package loop_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/loop"
)

// TestParseRequestDuplicateKeys: a top-level key given twice is refused
// naming it, whether the body has a few keys or very many (the map path),
// and however the key is escaped; a repeat inside a nested object is not
// ours to judge.
func TestParseRequestDuplicateKeys(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	var many strings.Builder
	for i := range 100 {
		fmt.Fprintf(&many, `"k%d":%d,`, i, i)
	}
	for _, tc := range []struct{ body, dup string }{
		{`{"model":"a","model":"b",` + msgs + `}`, "model"},
		{`{"model":"a",` + msgs + `,"x":1,"y":2,"x":3}`, "x"},
		{`{"model":"a",` + msgs + `,"str\u0065am":true,"stream":false}`, "stream"},
		{`{` + many.String() + `"model":"a",` + msgs + `,"k99":0}`, "k99"},
		{`{` + many.String() + `"model":"a",` + msgs + `}`, ""},
		{`{"model":"a",` + msgs + `,"metadata":{"x":1,"x":2}}`, ""},
	} {
		_, err := loop.ParseRequest([]byte(tc.body))
		var re *loop.RequestError
		switch {
		case tc.dup == "" && err != nil:
			t.Errorf("%.60s…: %v, want it accepted", tc.body, err)
		case tc.dup != "" && (!errors.As(err, &re) || re.Param != tc.dup || !strings.Contains(re.Message, `"`+tc.dup+`"`)):
			t.Errorf("%.60s…: %v, want a RequestError naming %q", tc.body, err, tc.dup)
		}
	}
}

// BenchmarkParseRequest is the per-request cost of reading a typical
// body, the duplicate-key pass included.
func BenchmarkParseRequest(b *testing.B) {
	body := []byte(`{"model":"qwen2.5:7b","stream":true,"stream_options":{"include_usage":true},"temperature":0.2,"max_tokens":512,` +
		`"messages":[{"role":"system","content":"You are helpful."},{"role":"user","content":"What is the weather in Paris?"}],` +
		`"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := loop.ParseRequest(body); err != nil {
			b.Fatal(err)
		}
	}
}
