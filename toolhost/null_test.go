package toolhost

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// nullSchema holds every way a parameter can allow null, and parameters
// that do not.
const nullSchema = `{
	"type": "object",
	"$defs": {"maybeText": {"type": ["string", "null"]}},
	"properties": {
		"text":       {"type": "string"},
		"textOrNull": {"type": ["string", "null"]},
		"nullOrText": {"type": ["null", "string"]},
		"intOrNull":  {"type": ["integer", "null"]},
		"anyOfNull":  {"anyOf": [{"type": "string"}, {"type": "null"}]},
		"oneOfNull":  {"oneOf": [{"type": "integer"}, {"type": "null"}]},
		"refNull":    {"$ref": "#/$defs/maybeText"},
		"enumNull":   {"enum": ["low", "high", null]},
		"constNull":  {"const": null},
		"onlyNull":   {"type": "null"},
		"enumText":   {"type": "string", "enum": ["null", "none"]},
		"allOfNull":  {"allOf": [{"type": ["string", "null"]}, {"maxLength": 3}]},
		"allOfText":  {"allOf": [{"type": ["string", "null"]}, {"type": "string"}]},
		"untyped":    {"description": "anything"},
		"list":       {"type": "array", "items": {"type": ["integer", "null"]}},
		"nested":     {"type": "object", "properties": {"note": {"type": ["string", "null"]}}}
	}
}`

// TestNullForNullable pins docs/tool-calls.md: the text null for a parameter
// whose schema allows null is JSON null; for any other parameter it stays what
// it was (the string "null" for a string parameter).
func TestNullForNullable(t *testing.T) {
	sch, err := compileSchema(json.RawMessage(nullSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in, want string
	}{
		{"string or null", `{"textOrNull":"null"}`, `{"textOrNull":null}`},
		{"null listed first", `{"nullOrText":"null"}`, `{"nullOrText":null}`},
		{"spaces around null", `{"textOrNull":" null\n"}`, `{"textOrNull":null}`},
		{"integer or null", `{"intOrNull":"null"}`, `{"intOrNull":null}`},
		{"anyOf with a null branch after string", `{"anyOfNull":"null"}`, `{"anyOfNull":null}`},
		{"oneOf with a null branch", `{"oneOfNull":"null"}`, `{"oneOfNull":null}`},
		{"through $ref", `{"refNull":"null"}`, `{"refNull":null}`},
		{"enum holding null", `{"enumNull":"null"}`, `{"enumNull":null}`},
		{"const null", `{"constNull":"null"}`, `{"constNull":null}`},
		{"type null", `{"onlyNull":"null"}`, `{"onlyNull":null}`},
		{"allOf all allowing null", `{"allOfNull":"null"}`, `{"allOfNull":null}`},
		{"array items", `{"list":["1","null"]}`, `{"list":[1,null]}`},
		{"nested property", `{"nested":{"note":"null"}}`, `{"nested":{"note":null}}`},
		{"already null stays null", `{"textOrNull":null}`, `{"textOrNull":null}`},
		{"other text in a nullable string stays", `{"textOrNull":"nil"}`, `{"textOrNull":"nil"}`},
		{"Null in capitals stays text", `{"textOrNull":"Null"}`, `{"textOrNull":"Null"}`},
		{"quoted null stays text", `{"textOrNull":"\"null\""}`, `{"textOrNull":"\"null\""}`},
		{"plain string keeps the word", `{"text":"null"}`, `{"text":"null"}`},
		{"string enum naming null keeps the word", `{"enumText":"null"}`, `{"enumText":"null"}`},
		{"allOf where one part forbids null", `{"allOfText":"null"}`, `{"allOfText":"null"}`},
		{"untyped keeps the word", `{"untyped":"null"}`, `{"untyped":"null"}`},
		{"unknown property keeps the word", `{"other":"null"}`, `{"other":"null"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, terr := prepareArguments(sch, json.RawMessage(tt.in))
			if terr != nil {
				t.Fatalf("tool error %v", terr)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("arguments (-want +got):\n%s", diff)
			}
		})
	}
}
