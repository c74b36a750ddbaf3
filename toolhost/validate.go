package toolhost

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/toolstream/toolstream/toolhost/clip"
)

// printer renders the library's own wording for the error kinds we do not
// phrase ourselves. message.Printer is safe for concurrent use.
var printer = message.NewPrinter(language.English)

// maxProblems bounds how many problems one message lists; the model fixes
// the first few and calls again.
const maxProblems = 5

// problem is one thing wrong with the arguments, phrased for the model.
type problem struct {
	missing bool
	path    string // "city", "filter.from", "stops[2]"; "" for the whole object
	text    string // for a missing parameter: its expected type, if known
	// want and got are set for a type mismatch so that anyOf branches
	// failing only on type can be merged into "expected a or b".
	want []string
	got  string
}

// describeValidation turns the validator's typed error tree into the tool
// error the model reads: MISSING_PARAMETER when a required parameter is
// absent, else INVALID_PARAMETER. It works from the error kinds
// (kind.Required, kind.Type, …) and instance locations, never from the
// library's message strings.
func describeValidation(root *jsonschema.Schema, inst any, verr *jsonschema.ValidationError) *ToolError {
	d := describer{root: root, inst: inst}
	d.walk(verr)
	probs := d.problems
	slices.SortStableFunc(probs, func(a, b problem) int {
		if a.missing != b.missing {
			if a.missing {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.path, b.path)
	})
	probs = slices.CompactFunc(probs, func(a, b problem) bool {
		return a.missing == b.missing && a.path == b.path && a.text == b.text
	})

	code := CodeInvalidParameter
	var parts, missing []string
	for _, p := range probs {
		if p.missing {
			code = CodeMissingParameter
			m := strconv.Quote(p.path)
			if p.text != "" {
				m += " (" + p.text + ")"
			}
			missing = append(missing, m)
			continue
		}
		parts = append(parts, p.String())
	}
	switch len(missing) {
	case 0:
	case 1:
		parts = append([]string{"missing required parameter " + missing[0]}, parts...)
	default:
		parts = append([]string{"missing required parameters " + strings.Join(missing, ", ")}, parts...)
	}
	if len(parts) == 0 { // a failure with no describable cause; should not happen
		parts = []string{"the arguments do not match the tool's parameters"}
	}
	if len(parts) > maxProblems {
		parts = append(parts[:maxProblems], fmt.Sprintf("and %d more", len(parts)-maxProblems))
	}
	te := &ToolError{Code: code, Message: strings.Join(parts, "; ")}
	if len(probs) > 0 {
		te.Param = probs[0].path
	}
	return te
}

func (p problem) String() string {
	if p.path == "" {
		return "arguments: " + p.text
	}
	return "parameter " + strconv.Quote(p.path) + ": " + p.text
}

type describer struct {
	root     *jsonschema.Schema
	inst     any
	problems []problem
}

func (d *describer) add(loc []string, text string) {
	d.problems = append(d.problems, problem{path: d.path(loc), text: text})
}

func (d *describer) walk(e *jsonschema.ValidationError) {
	loc := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		// Containers: the causes say what is wrong.
		for _, c := range e.Causes {
			d.walk(c)
		}
	case *kind.Required:
		for _, name := range k.Missing {
			full := append(slices.Clip(loc), name)
			d.problems = append(d.problems, problem{
				missing: true,
				path:    d.path(full),
				text:    typeName(schemaAt(d.root, d.inst, full)),
			})
		}
	case *kind.Type:
		got := d.valueAt(loc)
		d.problems = append(d.problems, problem{
			path: d.path(loc),
			text: "expected " + strings.Join(k.Want, " or ") + ", got " + got,
			want: k.Want,
			got:  got,
		})
	case *kind.AnyOf, *kind.OneOf:
		d.walkBranches(e)
	case *kind.AdditionalProperties:
		known := knownProperties(schemaAt(d.root, d.inst, loc))
		for _, name := range k.Properties {
			text := "not a parameter of this tool"
			if len(known) > 0 {
				text += " (known: " + strings.Join(known, ", ") + ")"
			}
			d.add(append(slices.Clip(loc), name), text)
		}
	case *kind.Minimum:
		d.add(loc, "must be >= "+k.Want.RatString()+", got "+k.Got.RatString())
	case *kind.Maximum:
		d.add(loc, "must be <= "+k.Want.RatString()+", got "+k.Got.RatString())
	case *kind.ExclusiveMinimum:
		d.add(loc, "must be > "+k.Want.RatString()+", got "+k.Got.RatString())
	case *kind.ExclusiveMaximum:
		d.add(loc, "must be < "+k.Want.RatString()+", got "+k.Got.RatString())
	case *kind.MinLength:
		d.add(loc, fmt.Sprintf("must be at least %d characters long, got %d", k.Want, k.Got))
	case *kind.MaxLength:
		d.add(loc, fmt.Sprintf("must be at most %d characters long, got %d", k.Want, k.Got))
	default:
		d.add(loc, k.LocalizedString(printer))
	}
}

// walkBranches describes a failed anyOf/oneOf. When every branch failed
// only on type at the same place, it says "expected a or b"; otherwise it
// lists what each branch wanted.
func (d *describer) walkBranches(e *jsonschema.ValidationError) {
	if k, ok := e.ErrorKind.(*kind.OneOf); ok && len(k.Subschemas) > 0 {
		d.add(e.InstanceLocation, "matches more than one allowed form")
		return
	}
	sub := describer{root: d.root, inst: d.inst}
	for _, c := range e.Causes {
		sub.walk(c)
	}
	path := d.path(e.InstanceLocation)
	var want []string
	merge := len(sub.problems) > 0
	for _, p := range sub.problems {
		if p.want == nil || p.path != path {
			merge = false
			break
		}
		want = append(want, p.want...)
	}
	if merge {
		slices.Sort(want)
		want = slices.Compact(want)
		d.problems = append(d.problems, problem{path: path,
			text: "expected " + strings.Join(want, " or ") + ", got " + sub.problems[0].got,
			want: want, got: sub.problems[0].got})
		return
	}
	alts := make([]string, 0, len(sub.problems))
	for _, p := range sub.problems {
		alts = append(alts, p.String())
	}
	d.add(e.InstanceLocation, "matches none of the allowed forms ("+strings.Join(alts, " | ")+")")
}

// path renders an instance location for the model: "filter.from",
// "stops[2].city". Tokens are array indexes only where the value is an
// array, which the location alone cannot tell.
func (d *describer) path(loc []string) string {
	var b strings.Builder
	v := d.inst
	for _, tok := range loc {
		if arr, ok := v.([]any); ok {
			b.WriteString("[" + tok + "]")
			v = nil
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(arr) {
				v = arr[i]
			}
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
		m, _ := v.(map[string]any)
		v = m[tok]
	}
	return b.String()
}

// valueAt describes the value at loc briefly: `string "abc"`, `number 3.5`,
// `object`.
func (d *describer) valueAt(loc []string) string {
	v := d.inst
	for _, tok := range loc {
		switch cur := v.(type) {
		case map[string]any:
			v = cur[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur) {
				return "a missing value"
			}
			v = cur[i]
		default:
			return "a missing value"
		}
	}
	switch val := v.(type) {
	case nil:
		return "null"
	case string:
		return "string " + strconv.Quote(clip.Excerpt(val, 40))
	case bool:
		return "boolean " + strconv.FormatBool(val)
	case map[string]any:
		return "object"
	case []any:
		return "array"
	default:
		return fmt.Sprintf("number %v", val)
	}
}

// resolved returns s and the schemas it stands for through $ref and allOf,
// where properties and types may be declared.
func resolved(s *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	var visit func(*jsonschema.Schema, int)
	visit = func(s *jsonschema.Schema, hops int) {
		if s == nil || hops > maxSchemaHops {
			return
		}
		out = append(out, s)
		visit(s.Ref, hops+1)
		if s.DynamicRef != nil {
			visit(s.DynamicRef.Ref, hops+1)
		}
		visit(s.RecursiveRef, hops+1)
		for _, sub := range s.AllOf {
			visit(sub, hops+1)
		}
	}
	visit(s, 0)
	return out
}

// schemaAt finds the schema describing the value at loc, or nil.
func schemaAt(root *jsonschema.Schema, inst any, loc []string) *jsonschema.Schema {
	s, v := root, inst
	for _, tok := range loc {
		var next *jsonschema.Schema
		arr, isArr := v.([]any)
		for _, r := range resolved(s) {
			if isArr {
				if i, err := strconv.Atoi(tok); err == nil {
					next = itemSchema(r, i)
				}
			} else if subs := propertySchemas(r, tok); len(subs) > 0 {
				next = subs[0]
			}
			if next != nil {
				break
			}
		}
		if next == nil {
			return nil
		}
		s = next
		if isArr {
			v = nil
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(arr) {
				v = arr[i]
			}
		} else {
			m, _ := v.(map[string]any)
			v = m[tok]
		}
	}
	return s
}

// typeName is the declared type of s ("integer", "string or null"), or "".
func typeName(s *jsonschema.Schema) string {
	for _, r := range resolved(s) {
		if r.Types != nil {
			return strings.Join(r.Types.ToStrings(), " or ")
		}
	}
	return ""
}

// knownProperties lists the declared property names of s, sorted.
func knownProperties(s *jsonschema.Schema) []string {
	var names []string
	for _, r := range resolved(s) {
		for name := range r.Properties {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
