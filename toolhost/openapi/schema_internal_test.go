package openapi

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pb33f/go-yaml"

	"github.com/toolstream/toolstream/config"
)

// resolve converts the schema at ptr in doc.
func resolve(t testing.TB, doc, ptr string) (string, bool) {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
		return "", false
	}
	r := newResolver(&root)
	b, err := json.Marshal(r.schema(pointer(r.root, ptr)))
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b), true
}

// TestResolver: refs are inlined with their siblings, recursion is cut
// with a description, and OpenAPI's own keywords become JSON Schema.
func TestResolver(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"ref inlined, sibling description wins",
			"s: {$ref: '#/c/Pet', description: the pet}\nc: {Pet: {type: object, description: a pet, properties: {name: {type: string}}}}",
			`{"description":"the pet","properties":{"name":{"type":"string"}},"type":"object"}`},
		{"recursion cut where it comes back",
			"s: {$ref: '#/c/Node'}\nc: {Node: {type: object, properties: {child: {$ref: '#/c/Node'}}}}",
			`{"properties":{"child":{"description":"(recursive: the same shape as Node above)"}},"type":"object"}`},
		{"mutual recursion",
			"s: {$ref: '#/c/A'}\nc: {A: {properties: {b: {$ref: '#/c/B'}}}, B: {items: {$ref: '#/c/A'}}}",
			`{"properties":{"b":{"items":{"description":"(recursive: the same shape as A above)"}}}}`},
		{"3.0 nullable and boolean exclusive bound",
			"s: {type: integer, nullable: true, minimum: 1, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false, enum: [1, 2]}",
			`{"enum":[1,2,null],"exclusiveMinimum":1,"maximum":9,"type":["integer","null"]}`},
		{"readOnly properties left out, and out of required",
			"s: {type: object, required: [id, name], properties: {id: {type: integer, readOnly: true}, name: {type: string}}}",
			`{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}`},
		{"documentation and extensions dropped, a property called example kept",
			"s: {type: object, example: {a: 1}, x-internal: true, xml: {name: p}, $id: /p, properties: {example: {type: string, examples: [a]}}}",
			`{"properties":{"example":{"type":"string"}},"type":"object"}`},
		{"ref to another document, to nothing",
			"s: {anyOf: [{$ref: 'other.yaml#/Pet'}, {$ref: '#/c/Nope'}]}",
			`{"anyOf":[{"description":"(not expanded: other.yaml#/Pet is in another document)"},{"description":"(not expanded: #/c/Nope is not in the document)"}]}`},
		{"boolean schemas, escaped pointer",
			"s: {properties: {a: true, b: false, c: {$ref: '#/c/a~1b%20c'}}}\nc: {a/b c: {type: string}}",
			`{"properties":{"a":{},"b":{"not":{}},"c":{"type":"string"}}}`},
		{"YAML aliases and typed values",
			"d: &d {type: number, default: 1.5, const: .inf}\ns: {properties: {a: *d, n: {default: ~, enum: [0x1f, 'yes', true]}}}",
			`{"properties":{"a":{"const":".inf","default":1.5,"type":"number"},"n":{"default":null,"enum":[31,"yes",true]}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := resolve(t, tc.doc, "/s")
			if !ok {
				t.Fatal("test document does not parse")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResolverBudget: a schema that would expand past the budget stops
// expanding refs, instead of inlining without end.
func TestResolverBudget(t *testing.T) {
	t.Parallel()
	// Each level refers to the next twice: 2^20 leaves if fully expanded.
	doc := "s: {$ref: '#/c/L0'}\nc:\n"
	for i := range 20 {
		doc += "  L" + itoa(i) + ": {properties: {a: {$ref: '#/c/L" + itoa(i+1) + "'}, b: {$ref: '#/c/L" + itoa(i+1) + "'}}}\n"
	}
	doc += "  L20: {type: string}\n"
	got, _ := resolve(t, doc, "/s")
	if len(got) > 3*schemaBudget*60 {
		t.Errorf("schema of %d bytes: the budget did not hold", len(got))
	}
}

func itoa(i int) string { return string(rune('a'+i/10)) + string(rune('0'+i%10)) }

// FuzzResolver: whatever the document, the resolver ends, and what it
// makes is JSON that compiles as a schema.
func FuzzResolver(f *testing.F) {
	for _, s := range []string{
		"s: {$ref: '#/c/Node'}\nc: {Node: {type: object, properties: {child: {$ref: '#/c/Node'}}}}",
		"s: {type: integer, nullable: true, exclusiveMinimum: true, minimum: 1}",
		"s: &a {items: *a}",
		"s: {enum: &e [*e, *e]}",
		"s: {$ref: '#'}",
		"s: {allOf: [{$ref: '#/s'}], properties: {a: {$ref: '#/s/properties'}}}",
		"s: {properties: {a: {pattern: '('}}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		got, ok := resolve(t, doc, "/s")
		if !ok {
			return
		}
		if !json.Valid([]byte(got)) {
			t.Fatalf("not JSON: %s", got)
		}
		_, _ = config.CompileSchema([]byte(got)) // must not panic; a bad pattern is the document's
	})
}
