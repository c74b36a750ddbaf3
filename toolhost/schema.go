package toolhost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolstream/toolstream/config"
)

// maxSchemaHops bounds how many $ref/allOf/anyOf hops coercion follows
// without descending into the value, so that a schema like {"$ref":"#"}
// cannot loop forever.
const maxSchemaHops = 32

// compileSchema compiles a tool's parameters once, at registration, by
// config's rules (see [config.CompileSchema]): whatever config accepted
// in a file or the admin API compiles here, and a schema from an MCP
// server is held to the same loader policy — no $ref outside itself.
func compileSchema(params json.RawMessage) (*jsonschema.Schema, error) {
	sch, err := config.CompileSchema(params)
	if err != nil {
		return nil, fmt.Errorf("parameters: %w", err)
	}
	return sch, nil
}

// prepareArguments parses a call's arguments, coerces them by the tool's
// schema and validates them. It returns the arguments to send (compact
// JSON) or the tool error the model should read.
//
// Lenient on purpose, because models are: empty arguments and null are
// read as {} (some local servers send "" for a call without parameters),
// and a JSON string holding an object is unwrapped (double-encoded
// arguments).
func prepareArguments(sch *jsonschema.Schema, raw json.RawMessage) (json.RawMessage, *ToolError) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		trimmed = []byte("{}")
	}
	v, err := decodeJSON(trimmed)
	if s, ok := v.(string); ok && err == nil {
		if inner, ierr := decodeJSON([]byte(s)); ierr == nil {
			if _, isObj := inner.(map[string]any); isObj {
				v, trimmed = inner, []byte(strings.TrimSpace(s))
			}
		}
	}
	obj, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, &ToolError{Code: CodeInvalidParameter,
			Message: "the arguments are not a JSON object; send the parameters as one JSON object, e.g. {\"name\": value}"}
	}

	cv, changed := coerce(sch, obj, 0)
	var out json.RawMessage
	if changed {
		out, err = marshalCompact(cv)
		if err != nil { // cannot happen for decoded JSON; be safe anyway
			return nil, &ToolError{Code: CodeInvalidParameter, Message: "the arguments cannot be encoded as JSON"}
		}
	} else {
		// Nothing coerced: keep the model's own key order and number text.
		var buf bytes.Buffer
		_ = json.Compact(&buf, trimmed) // valid: decodeJSON accepted it
		out = buf.Bytes()
	}

	if err := sch.Validate(cv); err != nil {
		var verr *jsonschema.ValidationError
		if !errors.As(err, &verr) {
			return out, &ToolError{Code: CodeInvalidParameter, Message: "the arguments cannot be validated"}
		}
		return out, describeValidation(sch, cv, verr)
	}
	return out, nil
}

// decodeJSON decodes one JSON value with numbers kept as json.Number, the
// form the validator wants and the one that keeps big integers exact.
func decodeJSON(b []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// marshalCompact encodes v without HTML escaping: the webhook should get
// "<" as "<", not "\u003c".
func marshalCompact(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// coerce converts string values to the types the schema asks for, because text
// formats (docs/tool-calls.md) give every value as a string: "3"→3,
// "true"→true, JSON text→array/object. It walks into object properties and
// array items where the schema describes them. A value that cannot be converted
// is left as it is, for validation to reject with a message naming it. It
// reports whether anything changed.
func coerce(s *jsonschema.Schema, v any, hops int) (any, bool) {
	if s == nil || hops > maxSchemaHops {
		return v, false
	}
	if str, ok := v.(string); ok && strings.TrimSpace(str) == "null" {
		// Decided here, for the schema as a whole: ["string","null"] would
		// keep the text, anyOf would take its string branch first, and an
		// allOf part allowing null must not win over one forbidding it.
		// No other type reads the text null, so nothing else can change.
		if allowsNull(s) {
			return nil, true
		}
		return v, false
	}
	changed := false
	apply := func(sub *jsonschema.Schema) {
		var c bool
		v, c = coerce(sub, v, hops+1)
		changed = changed || c
	}
	// References and allOf describe the same value: apply each in turn.
	apply(s.Ref)
	if s.DynamicRef != nil {
		apply(s.DynamicRef.Ref)
	}
	apply(s.RecursiveRef)
	for _, sub := range s.AllOf {
		apply(sub)
	}
	// anyOf/oneOf: take the first branch, in the author's order, that the
	// value satisfies once coerced for it. Each try works on a copy because
	// coercion edits objects and arrays in place.
	for _, branches := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
		for _, b := range branches {
			if cv, c := coerce(b, cloneJSON(v), hops+1); b.Validate(cv) == nil {
				if c {
					v, changed = cv, true
				}
				break
			}
		}
	}

	if str, ok := v.(string); ok && s.Types != nil {
		if cv, ok := coerceString(*s.Types, str); ok {
			v, changed = cv, true
		}
	}

	switch val := v.(type) {
	case map[string]any:
		for k, item := range val {
			for _, sub := range propertySchemas(s, k) {
				if cv, c := coerce(sub, item, 0); c {
					val[k], item, changed = cv, cv, true
				}
			}
		}
	case []any:
		for i, item := range val {
			if cv, c := coerce(itemSchema(s, i), item, 0); c {
				val[i], changed = cv, true
			}
		}
	}
	return v, changed
}

// coerceString converts s to the first type in want it reads as. A schema
// that allows strings keeps the string.
func coerceString(want jsonschema.Types, s string) (any, bool) {
	if hasType(want, "string") {
		return nil, false
	}
	t := strings.TrimSpace(s)
	if hasType(want, "integer") || hasType(want, "number") {
		if n, ok := parseNumber(t, !hasType(want, "number")); ok {
			return n, true
		}
	}
	if hasType(want, "boolean") {
		switch {
		case strings.EqualFold(t, "true"):
			return true, true
		case strings.EqualFold(t, "false"):
			return false, true
		}
	}
	if (hasType(want, "array") && strings.HasPrefix(t, "[")) ||
		(hasType(want, "object") && strings.HasPrefix(t, "{")) {
		if v, err := decodeJSON([]byte(t)); err == nil {
			return v, true
		}
		// Python's syntax for the same value, as Qwen3-Coder writes it.
		if js, ok := pythonLiteralJSON(t); ok {
			if v, err := decodeJSON(js); err == nil {
				return v, true
			}
		}
	}
	return nil, false
}

// allowsNull reports whether the text null given for a value of schema s
// means JSON null (docs/tool-calls.md): s must say so itself — "null" among its
// types, a null const or enum value, or a null branch reached through
// $ref, allOf, anyOf or oneOf — and accept null as a whole (an allOf part
// may still forbid it). A schema that says nothing of null, untyped ones
// included, keeps the text: a plain string parameter may well mean the
// word.
func allowsNull(s *jsonschema.Schema) bool {
	return mentionsNull(s, 0) && s.Validate(nil) == nil
}

func mentionsNull(s *jsonschema.Schema, hops int) bool {
	if s == nil || hops > maxSchemaHops {
		return false
	}
	if s.Types != nil && hasType(*s.Types, "null") || s.Const != nil && *s.Const == nil {
		return true
	}
	if s.Enum != nil {
		for _, e := range s.Enum.Values {
			if e == nil {
				return true
			}
		}
	}
	subs := append([]*jsonschema.Schema{s.Ref, s.RecursiveRef}, s.AllOf...)
	if s.DynamicRef != nil {
		subs = append(subs, s.DynamicRef.Ref)
	}
	subs = append(append(subs, s.AnyOf...), s.OneOf...)
	for _, sub := range subs {
		if mentionsNull(sub, hops+1) {
			return true
		}
	}
	return false
}

// parseNumber reads a decimal integer (leading zeros and "+" allowed) or a
// JSON number. With integerOnly, an integral value such as "3.0" or "1e3"
// is written as an integer so receivers decoding into int accept it.
func parseNumber(t string, integerOnly bool) (json.Number, bool) {
	if t == "" {
		return "", false
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return json.Number(strconv.FormatInt(n, 10)), true
	}
	if c := t[0]; c != '-' && (c < '0' || c > '9') || !json.Valid([]byte(t)) {
		return "", false
	}
	if integerOnly {
		if r, ok := new(big.Rat).SetString(t); ok && r.IsInt() {
			return json.Number(r.Num().String()), true
		}
	}
	return json.Number(t), true
}

func hasType(tt jsonschema.Types, name string) bool {
	var one jsonschema.Types
	one.Add(name)
	return int(tt)&int(one) != 0
}

// propertySchemas returns the schemas that apply to property k of an
// object: properties[k] and every matching patternProperties entry, or
// additionalProperties when neither applies.
func propertySchemas(s *jsonschema.Schema, k string) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	if sub, ok := s.Properties[k]; ok {
		out = append(out, sub)
	}
	for re, sub := range s.PatternProperties {
		if re.MatchString(k) {
			out = append(out, sub)
		}
	}
	if len(out) == 0 {
		if sub, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			out = append(out, sub)
		}
	}
	return out
}

// itemSchema returns the schema of array item i, for draft 2020-12
// (prefixItems/items) and the earlier items/additionalItems forms.
func itemSchema(s *jsonschema.Schema, i int) *jsonschema.Schema {
	if i < len(s.PrefixItems) {
		return s.PrefixItems[i]
	}
	if s.Items2020 != nil {
		return s.Items2020
	}
	switch items := s.Items.(type) {
	case *jsonschema.Schema:
		return items
	case []*jsonschema.Schema:
		if i < len(items) {
			return items[i]
		}
		if sub, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
			return sub
		}
	}
	return nil
}

// cloneJSON deep-copies a decoded JSON value.
func cloneJSON(v any) any {
	switch val := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(val))
		for k, item := range val {
			m[k] = cloneJSON(item)
		}
		return m
	case []any:
		a := make([]any, len(val))
		for i, item := range val {
			a[i] = cloneJSON(item)
		}
		return a
	}
	return v
}
