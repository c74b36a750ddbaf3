package toolhost

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCoercionNestedTextValues: minimax_m3's detector reads nested
// arguments with every leaf as text (loop/detect/minimaxm3.go); the
// tool's schema turns them into what vLLM's minimax_m3 parser returns
// for the same reply (tests/tool_parsers/test_minimax_m3_tool_parser.py,
// test_non_streaming_nested_tool_call), into objects, arrays and maps.
func TestCoercionNestedTextValues(t *testing.T) {
	schema := `{"type": "object", "properties": {
		"user_id": {"type": "integer"},
		"urgent": {"type": "boolean"},
		"note": {"type": "string"},
		"shipping": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "integer"}}},
		"items": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}}}},
		"metadata": {"type": "object", "additionalProperties": {"type": "string"}},
		"duplicate_demo": {"type": "object"}}}`
	detected := `{"user_id":"42","urgent":"true","note":"Please leave at front desk.",` +
		`"shipping":{"city":"Singapore","zip":"018956"},` +
		`"items":[{"sku":"book-001","qty":"2"},{"sku":"pen-007","qty":"5"}],` +
		`"metadata":{"source":"mobile","campaign":"may-launch"},"duplicate_demo":{"tag":["a","b"]}}`
	want := `{"user_id": 42, "urgent": true, "note": "Please leave at front desk.",
		"shipping": {"city": "Singapore", "zip": 18956},
		"items": [{"sku": "book-001", "qty": 2}, {"sku": "pen-007", "qty": 5}],
		"metadata": {"source": "mobile", "campaign": "may-launch"},
		"duplicate_demo": {"tag": ["a", "b"]}}`
	sch, err := compileSchema(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	got, terr := prepareArguments(sch, json.RawMessage(detected))
	if terr != nil {
		t.Fatal(terr)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(want), &w)
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("coerced (-want +got):\n%s", diff)
	}
}
