package textmode

import (
	"strconv"
	"strings"

	"github.com/valyala/fastjson"
)

// schema is the part of a tool's JSON Schema the prompt shows. Properties
// keep the order the schema was written in: a tool author orders them on
// purpose, and map iteration would make the prompt differ between runs
// (and defeat an upstream's prompt cache).
type schema struct {
	types       []string // "string", "integer", …; empty when not stated
	description string
	enum        []string // JSON texts of the allowed values
	def         string   // JSON text of the default; "" when none
	example     string   // JSON text of the first "examples" entry
	format      string
	minimum     string // JSON number texts; "" when absent
	maximum     string
	exclMinimum string
	exclMaximum string
	items       *schema
	props       []param
	alts        []*schema // anyOf / oneOf branches
}

// param is one property of an object schema.
type param struct {
	name     string
	required bool
	schema   *schema
}

// parseSchema reads a tool's parameters. A missing or malformed schema
// yields an empty one (a tool without parameters): the registry validates
// schemas when tools are registered, so here the prompt only has to stay
// useful.
func parseSchema(raw []byte) *schema {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return &schema{}
	}
	v, err := fastjson.ParseBytes(raw)
	if err != nil {
		return &schema{}
	}
	return readSchema(v, 0)
}

// maxDepth bounds the nesting the prompt shows; deeper levels appear as
// their bare type.
const maxDepth = 8

func readSchema(v *fastjson.Value, depth int) *schema {
	s := &schema{}
	o, err := v.Object()
	if err != nil || depth > maxDepth {
		return s
	}
	var required []string
	o.Visit(func(key []byte, v *fastjson.Value) {
		switch string(key) {
		case "type":
			switch v.Type() {
			case fastjson.TypeString:
				s.types = []string{string(v.GetStringBytes())}
			case fastjson.TypeArray:
				for _, t := range v.GetArray() {
					if t.Type() == fastjson.TypeString {
						s.types = append(s.types, string(t.GetStringBytes()))
					}
				}
			}
		case "description":
			s.description = strings.TrimSpace(string(v.GetStringBytes()))
		case "format":
			s.format = string(v.GetStringBytes())
		case "enum":
			for _, e := range v.GetArray() {
				s.enum = append(s.enum, string(e.MarshalTo(nil)))
			}
		case "const":
			s.enum = []string{string(v.MarshalTo(nil))}
		case "default":
			s.def = string(v.MarshalTo(nil))
		case "examples":
			if a := v.GetArray(); len(a) > 0 {
				s.example = string(a[0].MarshalTo(nil))
			}
		case "minimum":
			s.minimum = number(v)
		case "maximum":
			s.maximum = number(v)
		case "exclusiveMinimum":
			s.exclMinimum = number(v)
		case "exclusiveMaximum":
			s.exclMaximum = number(v)
		case "items":
			s.items = readSchema(v, depth+1)
		case "properties":
			if po, err := v.Object(); err == nil {
				po.Visit(func(name []byte, pv *fastjson.Value) {
					s.props = append(s.props, param{name: string(name), schema: readSchema(pv, depth+1)})
				})
			}
		case "required":
			for _, r := range v.GetArray() {
				required = append(required, string(r.GetStringBytes()))
			}
		case "anyOf", "oneOf":
			for _, a := range v.GetArray() {
				s.alts = append(s.alts, readSchema(a, depth+1))
			}
		}
	})
	for i := range s.props {
		for _, r := range required {
			if s.props[i].name == r {
				s.props[i].required = true
			}
		}
	}
	return s
}

// number returns the JSON text of a number; draft-4 style boolean
// exclusiveMinimum/Maximum and other non-numbers give "".
func number(v *fastjson.Value) string {
	if v.Type() != fastjson.TypeNumber {
		return ""
	}
	return string(v.MarshalTo(nil))
}

// typeName is the type a reader should write: the stated type, or the one
// implied by properties, items or alternatives.
func (s *schema) typeName() string {
	switch {
	case len(s.types) > 0:
		ts := make([]string, len(s.types))
		for i, t := range s.types {
			ts[i] = s.typeOne(t)
		}
		return strings.Join(ts, " or ")
	case len(s.props) > 0:
		return s.typeOne("object")
	case s.items != nil:
		return s.typeOne("array")
	case len(s.alts) > 0:
		ts := make([]string, 0, len(s.alts))
		for _, a := range s.alts {
			ts = append(ts, a.typeName())
		}
		return strings.Join(ts, " or ")
	case len(s.enum) > 0:
		return enumType(s.enum)
	}
	return "any"
}

// typeOne spells one type, with the element type of an array and the
// fields of an object shown compactly:
//
//	array of string
//	object {street: string (required), zip: string}
func (s *schema) typeOne(t string) string {
	switch t {
	case "array":
		if s.items == nil {
			return "array"
		}
		return "array of " + s.items.typeName()
	case "object":
		if len(s.props) == 0 {
			return "object"
		}
		var b strings.Builder
		b.WriteString("object {")
		for i, p := range s.props {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(p.name)
			b.WriteString(": ")
			b.WriteString(p.schema.typeName())
			if p.required {
				b.WriteString(" (required)")
			}
		}
		b.WriteString("}")
		return b.String()
	}
	return t
}

// enumType guesses the type of an untyped enum from its first value.
func enumType(enum []string) string {
	switch c := enum[0][0]; {
	case c == '"':
		return "string"
	case c == 't' || c == 'f':
		return "boolean"
	case c == '-' || '0' <= c && c <= '9':
		return "number"
	}
	return "any"
}

// constraints lists what limits a value, in a fixed order.
func (s *schema) constraints() []string {
	var cs []string
	if len(s.enum) == 1 {
		cs = append(cs, "always "+s.enum[0])
	} else if len(s.enum) > 1 {
		cs = append(cs, "one of "+strings.Join(s.enum, " | "))
	}
	if s.minimum != "" {
		cs = append(cs, "minimum "+s.minimum)
	}
	if s.exclMinimum != "" {
		cs = append(cs, "greater than "+s.exclMinimum)
	}
	if s.maximum != "" {
		cs = append(cs, "maximum "+s.maximum)
	}
	if s.exclMaximum != "" {
		cs = append(cs, "less than "+s.exclMaximum)
	}
	if s.format != "" {
		cs = append(cs, "format "+s.format)
	}
	if s.def != "" {
		cs = append(cs, "default "+s.def)
	}
	return cs
}

// bounds returns the numeric limits of s; ok is false for a limit that is
// absent.
func (s *schema) bounds() (lo float64, loOK bool, hi float64, hiOK bool) {
	if f, err := strconv.ParseFloat(s.minimum, 64); err == nil {
		lo, loOK = f, true
	}
	if f, err := strconv.ParseFloat(s.exclMinimum, 64); err == nil && (!loOK || f >= lo) {
		lo, loOK = f+1e-9, true
	}
	if f, err := strconv.ParseFloat(s.maximum, 64); err == nil {
		hi, hiOK = f, true
	}
	if f, err := strconv.ParseFloat(s.exclMaximum, 64); err == nil && (!hiOK || f <= hi) {
		hi, hiOK = f-1e-9, true
	}
	return lo, loOK, hi, hiOK
}
