package openapi

import (
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/pb33f/go-yaml"
)

// schemaBudget bounds the nodes one operation's parameters may expand to:
// a document whose schemas refer to each other widely (Stripe's do) would
// otherwise inline megabytes into a tool the model reads every turn. Past
// it, a $ref is left as a short description.
const schemaBudget = 20000

// maxDepth bounds how deep schemas nest: a YAML alias may make a schema
// that contains itself without any $ref.
const maxDepth = 64

// resolver turns a schema written in an OpenAPI document into a plain
// JSON Schema (draft 2020-12) value: every local $ref replaced by what it
// points to, a $ref met again inside itself (a recursive shape) cut to a
// description, and the OpenAPI-only keywords dropped or rewritten
// (3.0's nullable and boolean exclusiveMinimum, example, xml,
// discriminator, x-…). The output is what a tool's parameters hold: the
// model reads it, and the registry validates arguments against it.
type resolver struct {
	root   *yaml.Node
	stack  []string // the $refs being expanded, outermost first
	budget int
	depth  int
}

func newResolver(root *yaml.Node) *resolver {
	if root != nil && root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	return &resolver{root: root, budget: schemaBudget}
}

// schema converts the schema at n. A nil node is the empty schema.
func (r *resolver) schema(n *yaml.Node) map[string]any {
	n = deref(n)
	r.budget--
	if r.depth >= maxDepth || r.budget < -schemaBudget {
		return map[string]any{"description": "(not expanded: the schema is too deep)"}
	}
	r.depth++
	defer func() { r.depth-- }()
	switch {
	case n == nil:
		return map[string]any{}
	case n.Kind == yaml.ScalarNode && n.Tag == "!!bool":
		// true and false are schemas too (3.1); false matches nothing.
		if n.Value == "false" {
			return map[string]any{"not": map[string]any{}}
		}
		return map[string]any{}
	case n.Kind != yaml.MappingNode:
		return map[string]any{}
	}
	if ref, ok := lookup(n, "$ref"); ok && ref.Kind == yaml.ScalarNode {
		return r.ref(n, ref.Value)
	}
	out := make(map[string]any, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		r.keyword(out, n.Content[i].Value, n.Content[i+1])
	}
	fixNullable(out)
	fixExclusive(out)
	return out
}

// ref expands a $ref, with the keywords written next to it applied on top
// (3.1 lets them add to or override the target; 3.0 ignores them, and
// then they are only descriptions anyway).
func (r *resolver) ref(n *yaml.Node, ref string) map[string]any {
	name := ref[strings.LastIndexByte(ref, '/')+1:]
	var out map[string]any
	switch {
	case !strings.HasPrefix(ref, "#"):
		out = map[string]any{"description": "(not expanded: " + ref + " is in another document)"}
	case slices.Contains(r.stack, ref):
		out = map[string]any{"description": "(recursive: the same shape as " + name + " above)"}
	case r.budget <= 0:
		out = map[string]any{"description": "(not expanded: " + name + "; the schema is too large)"}
	default:
		target := pointer(r.root, ref[1:])
		if target == nil {
			return map[string]any{"description": "(not expanded: " + ref + " is not in the document)"}
		}
		r.stack = append(r.stack, ref)
		out = r.schema(target)
		r.stack = r.stack[:len(r.stack)-1]
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k != "$ref" {
			r.keyword(out, k, n.Content[i+1])
		}
	}
	fixNullable(out)
	return out
}

// keyword stores one keyword of a schema object into out.
func (r *resolver) keyword(out map[string]any, key string, v *yaml.Node) {
	v = deref(v)
	switch key {
	case "items", "not", "additionalProperties", "contains", "propertyNames", "if", "then", "else",
		"unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema":
		if v.Kind == yaml.ScalarNode && v.Tag == "!!bool" {
			out[key] = v.Value == "true"
			return
		}
		if v.Kind == yaml.SequenceNode { // 2019's tuple items
			out["prefixItems"] = r.schemaList(v)
			return
		}
		out[key] = r.schema(v)
	case "allOf", "anyOf", "oneOf", "prefixItems":
		out[key] = r.schemaList(v)
	case "properties":
		r.properties(out, v)
	case "patternProperties", "$defs", "definitions", "dependentSchemas":
		m := map[string]any{}
		for i := 0; v.Kind == yaml.MappingNode && i+1 < len(v.Content); i += 2 {
			m[v.Content[i].Value] = r.schema(v.Content[i+1])
		}
		out[key] = m
	case "$ref", "$id", "$schema", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment",
		"example", "examples", "xml", "externalDocs", "discriminator", "writeOnly":
		// Documentation for people, or identifiers that would make the
		// schema resolve elsewhere: nothing the model or validation needs.
	default:
		if strings.HasPrefix(key, "x-") {
			return
		}
		out[key] = r.value(v, 0)
	}
}

func (r *resolver) schemaList(v *yaml.Node) []any {
	if v.Kind != yaml.SequenceNode {
		return []any{r.schema(v)}
	}
	list := make([]any, 0, len(v.Content))
	for _, c := range v.Content {
		list = append(list, r.schema(c))
	}
	return list
}

// properties converts properties, leaving out those marked readOnly: a
// request never carries them, so the model is not asked for them.
func (r *resolver) properties(out map[string]any, v *yaml.Node) {
	props := map[string]any{}
	var readOnly []string
	for i := 0; v.Kind == yaml.MappingNode && i+1 < len(v.Content); i += 2 {
		name := v.Content[i].Value
		s := r.schema(v.Content[i+1])
		if s["readOnly"] == true {
			readOnly = append(readOnly, name)
			continue
		}
		props[name] = s
	}
	out["properties"] = props
	if len(readOnly) > 0 {
		out["-readOnly"] = readOnly // applied to required once it is read
	}
}

// fixNullable rewrites 3.0's nullable: true as a type that admits null,
// and drops what is left of the readOnly bookkeeping.
func fixNullable(s map[string]any) {
	if ro, ok := s["-readOnly"].([]string); ok {
		delete(s, "-readOnly")
		if req, ok := s["required"].([]any); ok {
			s["required"] = slices.DeleteFunc(req, func(v any) bool {
				name, _ := v.(string)
				return slices.Contains(ro, name)
			})
		}
	}
	nullable, ok := s["nullable"]
	if !ok {
		return
	}
	delete(s, "nullable")
	if nullable != true {
		return
	}
	switch t := s["type"].(type) {
	case string:
		s["type"] = []any{t, "null"}
	case []any:
		if !slices.Contains(t, any("null")) {
			s["type"] = append(t, "null")
		}
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, nil) {
		s["enum"] = append(enum, nil)
	}
}

// fixExclusive rewrites 3.0's boolean exclusiveMinimum/Maximum, which
// qualify minimum/maximum, as 2020-12's numbers.
func fixExclusive(s map[string]any) {
	for _, k := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		b, isBool := s[k[0]].(bool)
		if !isBool {
			continue
		}
		delete(s, k[0])
		if bound, ok := s[k[1]]; ok && b {
			s[k[0]] = bound
			delete(s, k[1])
		}
	}
}

// value converts a plain YAML value (enum, default, const…) to JSON;
// past maxDepth or the budget (aliases inside themselves, or many times
// over) it gives null.
func (r *resolver) value(n *yaml.Node, depth int) any {
	n = deref(n)
	r.budget--
	if n == nil || depth > maxDepth || r.budget < -schemaBudget {
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = r.value(n.Content[i+1], depth+1)
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			l = append(l, r.value(c, depth+1))
		}
		return l
	}
	switch n.Tag {
	case "!!null":
		return nil
	case "!!bool":
		return n.Value == "true"
	case "!!int":
		if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return i
		}
	case "!!float":
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	}
	return n.Value
}

// deref follows YAML aliases and documents to the node they stand for.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < 100; i++ {
		switch {
		case n.Kind == yaml.AliasNode:
			n = n.Alias
		case n.Kind == yaml.DocumentNode && len(n.Content) > 0:
			n = n.Content[0]
		default:
			return n
		}
	}
	return n
}

// lookup returns the value of key in mapping n.
func lookup(n *yaml.Node, key string) (*yaml.Node, bool) {
	for i := 0; n != nil && n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return deref(n.Content[i+1]), true
		}
	}
	return nil, false
}

// pointer resolves a JSON pointer (RFC 6901, "/components/schemas/Pet",
// URL-escaped as $refs write it) from root; nil when it leads nowhere.
func pointer(root *yaml.Node, ptr string) *yaml.Node {
	if p, err := unescapeFragment(ptr); err == nil {
		ptr = p
	}
	n := deref(root)
	if ptr == "" {
		return n
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil
	}
	for tok := range strings.SplitSeq(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n.Kind {
		case yaml.MappingNode:
			var ok bool
			if n, ok = lookup(n, tok); !ok {
				return nil
			}
		case yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil
			}
			n = deref(n.Content[i])
		default:
			return nil
		}
		if n == nil {
			return nil
		}
	}
	return n
}

// unescapeFragment undoes the %-escapes of a URI fragment.
func unescapeFragment(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	return url.PathUnescape(s)
}
