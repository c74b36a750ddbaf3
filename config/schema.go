package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaURL is where a tool's parameters sit for the compiler. It is the
// same for every tool, so a relative $ref resolves the same way when
// config checks a schema as when toolhost compiles it.
const schemaURL = "toolstream:///tool/parameters.json"

// CompileSchema compiles a tool's parameters, the one way toolstream
// does: as draft 2020-12 unless "$schema" names another, and with
// nothing loaded, so a $ref may only point inside the schema
// ("#/$defs/…"), never at a file on the proxy's disk or a network
// address. config checks tools with it and toolhost validates arguments
// with the schema it returns, so a schema one accepts the other never
// refuses. The error is a sentence for whoever wrote the schema.
func CompileSchema(params json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := decodeSchema(params)
	if err != nil {
		return nil, err
	}
	return compileSchemaDoc(doc)
}

// decodeSchema reads parameters as the JSON object a schema must be.
func decodeSchema(params json.RawMessage) (map[string]any, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("want a JSON Schema object with type: object")
	}
	return obj, nil
}

func compileSchemaDoc(doc map[string]any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("invalid JSON Schema: %w", err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		var le *jsonschema.LoadURLError
		if errors.As(err, &le) {
			return nil, fmt.Errorf("invalid JSON Schema: $ref %q: only references inside this schema (#/$defs/...) are allowed", le.URL)
		}
		return nil, errors.New("invalid JSON Schema: " + schemaError(err))
	}
	return sch, nil
}

// refuseLoader stops $ref from reaching the disk or the network: every
// URL the compiler does not already hold is refused, whatever its scheme.
type refuseLoader struct{}

func (refuseLoader) Load(string) (any, error) {
	return nil, errors.New("external references are not loaded")
}
