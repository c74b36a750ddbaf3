package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// schemaJSON converts a tool's parameters from YAML to JSON, keeping the
// file's key order (the order the model reads properties in) and YAML's
// types: 3 stays the number 3, "3" stays a string. Scalars are expanded
// like any other value. It fails when any problem was reported inside.
func (d *decoder) schemaJSON(n *yaml.Node, path string) ([]byte, bool) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want a mapping (a JSON Schema with type: object), got a %s", kindName(n))
		return nil, false
	}
	before := len(d.problems)
	var buf bytes.Buffer
	d.writeJSON(&buf, n, path)
	return buf.Bytes(), len(d.problems) == before
}

func (d *decoder) writeJSON(buf *bytes.Buffer, n *yaml.Node, path string) {
	n = resolve(n)
	if !d.spend(n, path) {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		buf.WriteByte('{')
		first := true
		d.entries(n, path, func(key string, _, v *yaml.Node, p string) {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			k, _ := json.Marshal(key)
			buf.Write(k)
			buf.WriteByte(':')
			d.writeJSON(buf, v, p)
		})
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			d.writeJSON(buf, item, path+"["+strconv.Itoa(i)+"]")
		}
		buf.WriteByte(']')
	case yaml.ScalarNode:
		d.writeScalarJSON(buf, n, path)
	default:
		d.errorf(n, path, "unsupported YAML %s", kindName(n))
	}
}

func (d *decoder) writeScalarJSON(buf *bytes.Buffer, n *yaml.Node, path string) {
	var v any
	switch n.ShortTag() {
	case "!!null":
		buf.WriteString("null")
		return
	case "!!bool", "!!int", "!!float":
		if err := n.Decode(&v); err != nil {
			d.errorf(n, path, "invalid %s %q", strings.TrimPrefix(n.ShortTag(), "!!"), n.Value)
			return
		}
	default:
		// Strings, and anything YAML would make a timestamp or binary:
		// JSON has no such types, so the text is kept as written.
		s, ok := d.scalar(n, path, "a value")
		if !ok {
			return
		}
		v = s
	}
	js, err := json.Marshal(v)
	if err != nil {
		// .inf and .nan are YAML floats JSON cannot write.
		d.errorf(n, path, "%s cannot be written in JSON", n.Value)
		return
	}
	buf.Write(js)
}

// checkSchema reports what is wrong with a tool's parameters, or "".
// It must be a JSON object; "type", when present, must be "object" (the
// arguments of a call are always an object); and it must compile as JSON
// Schema (draft 2020-12 unless it names another with $schema). References
// to other documents are refused: config does no network or disk I/O.
func checkSchema(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "" // a Tool built in code without parameters takes none
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Sprintf("not valid JSON: %v", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return "want a JSON Schema object with type: object"
	}
	if t, ok := obj["type"]; ok && t != "object" {
		return fmt.Sprintf("type must be object (tool arguments are a JSON object), got %s", compactJSON(t))
	}
	const url = "toolstream:///tool/parameters.json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(url, doc); err != nil {
		return fmt.Sprintf("invalid JSON Schema: %v", err)
	}
	if _, err := c.Compile(url); err != nil {
		var le *jsonschema.LoadURLError
		if errors.As(err, &le) {
			return fmt.Sprintf("invalid JSON Schema: $ref %q: only references inside this schema (#/$defs/...) are allowed", le.URL)
		}
		return "invalid JSON Schema: " + schemaError(err)
	}
	return ""
}

// schemaError flattens the library's multi-line error tree into one line:
// the leaves say what is wrong and where.
func schemaError(err error) string {
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if !errors.As(err, &sve) || !errors.As(sve.Err, &ve) {
		return strings.Join(strings.Fields(err.Error()), " ")
	}
	// The leaves of the tree say what is wrong and where; the inner nodes
	// only say that a subschema failed.
	var leaves []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e.Error())
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	const most = 5
	if len(leaves) > most {
		leaves = append(leaves[:most], fmt.Sprintf("and %d more", len(leaves)-most))
	}
	return strings.Join(leaves, "; ")
}

func compactJSON(v any) string {
	js, _ := json.Marshal(v)
	return string(js)
}

// refuseLoader stops $ref from reaching the disk or the network.
type refuseLoader struct{}

func (refuseLoader) Load(string) (any, error) {
	return nil, errors.New("external references are not loaded")
}
