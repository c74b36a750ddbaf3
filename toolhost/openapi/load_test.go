package openapi_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/toolhost/openapi"
)

// TestParseReportsProblemsAtTheirPlace: a broken document's problems name
// the line and column and the JSON pointer of each.
func TestParseReportsProblemsAtTheirPlace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"broken.yaml", mustRead(t, "testdata/broken.yaml"), []string{
			`broken.yaml:12:5 (/paths/~1contacts/post): operation POST /contacts has no operationId: add one (its tool is named by it)`,
			`broken.yaml:23:5 (/paths/~1contacts~1{id}/get/operationId): operationId "listContacts" is used twice (first by GET /contacts at line 7)`,
		}},
		{"ref.yaml", "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      operationId: a\n      parameters:\n        - $ref: '#/components/parameters/Nope'\n      responses: {'200': {description: ok}}\n", []string{
			`ref.yaml:8:11: component ` + "`#/components/parameters/Nope`" + ` does not exist in the specification`,
		}},
		{"swagger.yaml", "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n", []string{
			`swagger.yaml:1:1: not an OpenAPI 3 document (version "2.0"): Swagger 2.0 documents must be converted first`,
		}},
		{"notes.txt", "just some words", []string{
			`notes.txt: not an OpenAPI document: `,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := openapi.Parse([]byte(tc.doc), tc.name)
			if err == nil {
				t.Fatal("parsed a broken document")
			}
			got := strings.Split(err.Error(), "\n")
			for i := range got {
				if i < len(tc.want) && strings.HasSuffix(tc.want[i], ": ") && strings.HasPrefix(got[i], tc.want[i]) {
					got[i] = tc.want[i] // the library's own words after the prefix
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRealDocuments: the real documents load, every operation a tool whose
// schema the registry compiles; Stripe's form-encoded operations with a
// required body are the ones left out, each said why.
func TestRealDocuments(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file           string
		tools, skipped int
	}{
		{"petstore-3.0.yaml", 19, 0},
		{"museum-3.1.yaml", 8, 0},
		{"stripe.yaml", 423, 71},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			doc, err := openapi.Parse([]byte(mustRead(t, "testdata/"+tc.file)), tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Operations) != tc.tools || len(doc.Skipped) != tc.skipped {
				t.Errorf("%d operations, %d skipped; want %d and %d", len(doc.Operations), len(doc.Skipped), tc.tools, tc.skipped)
			}
			for _, s := range doc.Skipped {
				if !strings.Contains(s.Message, "is not JSON") || s.Line == 0 {
					t.Errorf("skipped without its place or reason: %s", s)
				}
			}
		})
	}
}

// BenchmarkParseStripe: loading a document of 494 operations (4.5 MB of
// YAML, recursive schemas) must stay well under a second.
func BenchmarkParseStripe(b *testing.B) {
	data, err := os.ReadFile("testdata/stripe.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := openapi.Parse(data, "stripe.yaml"); err != nil {
			b.Fatal(err)
		}
	}
}

func mustRead(t *testing.T, f string) string {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzParse: whatever the document, Parse ends with a document or placed
// problems, and every operation it gives has a schema that compiles.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a/{id}:\n    parameters: [{name: id, in: path, schema: {$ref: '#/components/schemas/S'}}]\n    post:\n      operationId: a\n      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/S'}}}}\ncomponents: {schemas: {S: {type: object, properties: {s: {$ref: '#/components/schemas/S'}}}}}\n",
		"openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {/x: {get: {responses: {}}}}\n",
		"{\"openapi\":\"3.1.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{\"/b\":{\"put\":{\"operationId\":\"b\",\"requestBody\":{\"required\":true,\"content\":{\"text/plain\":{}}}}}}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		d, err := openapi.Parse([]byte(doc), "f.yaml")
		if err != nil {
			return
		}
		for _, op := range d.Operations {
			b, err := json.Marshal(op.Parameters)
			if err != nil || !json.Valid(b) {
				t.Fatalf("%s: parameters %s: %v", op.ID, b, err)
			}
		}
	})
}
