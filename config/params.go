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

// maxSchemaDepth bounds the nesting of a tool's parameters. Real schemas
// nest a handful of levels; an alias inside the node it names would
// otherwise nest forever.
const maxSchemaDepth = 64

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
	w := &schemaWriter{d: d, base: path}
	w.value(n)
	return w.buf.Bytes(), len(d.problems) == before && d.budget >= 0
}

// schemaWriter writes one parameters tree as JSON. The path is kept as a
// stack of segments and joined only for a problem, so large or aliased
// trees cost no string building per node.
type schemaWriter struct {
	d       *decoder
	buf     bytes.Buffer
	base    string
	segs    []string
	tooDeep bool
}

func (w *schemaWriter) path() string { return w.base + strings.Join(w.segs, "") }

func (w *schemaWriter) value(n *yaml.Node) {
	n = resolve(n)
	if w.tooDeep || !w.d.spend(1+len(n.Value)) {
		return
	}
	if len(w.segs) > maxSchemaDepth {
		if !w.tooDeep {
			w.tooDeep = true // stop the whole tree: report once, not per branch
			w.d.errorf(n, w.path(), "nested deeper than %d levels (is an alias used inside the node it names?)", maxSchemaDepth)
		}
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		w.mapping(n)
	case yaml.SequenceNode:
		w.buf.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.segs = append(w.segs, "["+strconv.Itoa(i)+"]")
			w.value(item)
			w.segs = w.segs[:len(w.segs)-1]
		}
		w.buf.WriteByte(']')
	case yaml.ScalarNode:
		w.scalar(n)
	default:
		w.d.errorf(n, w.path(), "unsupported YAML %s", kindName(n))
	}
}

// mapping writes an object, with the same key rules as [decoder.entries].
func (w *schemaWriter) mapping(n *yaml.Node) {
	w.buf.WriteByte('{')
	seen := make(map[string]int, len(n.Content)/2)
	first := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if k.Kind != yaml.ScalarNode {
			w.d.report(position{k.Line, k.Column}, w.path(), "a key must be a plain string, got a %s", kindName(k))
			continue
		}
		if !w.d.spend(len(k.Value)) {
			return
		}
		w.segs = append(w.segs, "."+k.Value)
		switch line, dup := seen[k.Value]; {
		case k.ShortTag() == "!!merge":
			w.d.errorf(k, w.path(), "merge keys (<<) are not supported; write the keys out")
		case dup:
			w.d.errorf(k, w.path(), "duplicate key (first at line %d)", line)
		default:
			seen[k.Value] = k.Line
			if !first {
				w.buf.WriteByte(',')
			}
			first = false
			key, _ := json.Marshal(k.Value)
			w.buf.Write(key)
			w.buf.WriteByte(':')
			w.value(n.Content[i+1])
		}
		w.segs = w.segs[:len(w.segs)-1]
	}
	w.buf.WriteByte('}')
}

func (w *schemaWriter) scalar(n *yaml.Node) {
	var v any
	switch n.ShortTag() {
	case "!!null":
		w.buf.WriteString("null")
		return
	case "!!bool", "!!int", "!!float":
		if err := n.Decode(&v); err != nil {
			w.d.errorf(n, w.path(), "invalid %s %q", strings.TrimPrefix(n.ShortTag(), "!!"), n.Value)
			return
		}
	default:
		// Strings, and anything YAML would make a timestamp or binary:
		// JSON has no such types, so the text is kept as written.
		v = n.Value
		if strings.Contains(n.Value, "${") || strings.HasPrefix(n.Value, "os.environ/") {
			s, ok := w.d.scalar(n, w.path(), "a value")
			if !ok {
				return
			}
			v = s
		}
	}
	js, err := json.Marshal(v)
	if err != nil {
		// .inf and .nan are YAML floats JSON cannot write.
		w.d.errorf(n, w.path(), "%s cannot be written in JSON", n.Value)
		return
	}
	w.buf.Write(js)
}

// checkSchema reports what is wrong with a tool's parameters, or "".
// It must be a JSON object; "type", when present, must be "object" (the
// arguments of a call are always an object); and it must compile the way
// [CompileSchema] compiles it for toolhost, so no $ref reaches another
// document: config does no network or disk I/O.
func checkSchema(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "" // a Tool built in code without parameters takes none
	}
	doc, err := decodeSchema(raw)
	if err != nil {
		return err.Error()
	}
	if t, ok := doc["type"]; ok && t != "object" {
		return fmt.Sprintf("type must be object (tool arguments are a JSON object), got %s", compactJSON(t))
	}
	if _, err := compileSchemaDoc(doc); err != nil {
		return err.Error()
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
