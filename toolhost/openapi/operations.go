package openapi

import (
	"fmt"
	"mime"
	"net/http"
	"strings"

	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// Operation is one operation of a document, as a tool sees it.
type Operation struct {
	// ID is the operationId.
	ID string
	// Method is upper case ("GET"); Path the path template ("/pets/{id}").
	Method, Path string
	// Description is the summary and the description, joined.
	Description string
	// Params are the path, query and header parameters the call sends.
	Params []Param
	// Body says how the JSON request body is made from the arguments.
	Body BodyMode
	// BodyRequired says the operation needs a body.
	BodyRequired bool
	// Parameters is the JSON Schema of the tool's arguments.
	Parameters map[string]any
	// Line and Pointer place the operation in its document.
	Line    int
	Pointer string
}

// Param is one parameter of an operation: where it goes and under which
// property of the arguments the model gives it.
type Param struct {
	// Name is the parameter's name in the request; In is path, query or
	// header.
	Name, In string
	// Prop is its property in the arguments: Name, or "<in>_<name>" when
	// another parameter took Name.
	Prop string
	// Style and Explode say how a list or an object is written
	// (OpenAPI's serialization; the defaults filled in).
	Style   string
	Explode bool
}

// BodyMode says how an operation's JSON body comes from the arguments.
type BodyMode int

const (
	// NoBody: the request has no body.
	NoBody BodyMode = iota
	// FlatBody: the body is an object whose properties sit among the
	// parameters; every argument that is no parameter goes into it.
	FlatBody
	// WrappedBody: the body is the "body" argument.
	WrappedBody
)

// methods are the operation methods a tool may call, in the order tools
// are listed for a path.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// operations fills d.Operations from the model, and returns the problems
// that keep the document from being read: operations without an
// operationId, operationIds used twice.
func (d *Document) operations(m *v3.Document, r *resolver) []Problem {
	if m.Paths == nil || m.Paths.PathItems == nil {
		return nil
	}
	var problems []Problem
	seen := map[string]*Operation{}
	for p := m.Paths.PathItems.First(); p != nil; p = p.Next() {
		path, item := p.Key(), p.Value()
		ops := item.GetOperations()
		for _, method := range methods {
			op, ok := ops.Get(method)
			if !ok || op == nil {
				continue
			}
			o := &Operation{
				ID: op.OperationId, Method: strings.ToUpper(method), Path: path,
				Pointer: "/paths/" + escapeToken(path) + "/" + method,
			}
			if low := op.GoLow(); low != nil && low.KeyNode != nil {
				o.Line = low.KeyNode.Line
			}
			switch first, dup := seen[o.ID]; {
			case o.ID == "":
				problems = append(problems, Problem{Line: o.Line, Col: 5, Pointer: o.Pointer,
					Message: fmt.Sprintf("operation %s %s has no operationId: add one (its tool is named by it)", o.Method, path)})
				continue
			case dup:
				problems = append(problems, Problem{Line: o.Line, Col: 5, Pointer: o.Pointer + "/operationId",
					Message: fmt.Sprintf("operationId %q is used twice (first by %s %s at line %d)", o.ID, first.Method, first.Path, first.Line)})
				continue
			}
			seen[o.ID] = o
			o.Description = joinText(op.Summary, op.Description)
			if skip := o.build(r, item.Parameters, op); skip != "" {
				d.Skipped = append(d.Skipped, Problem{Line: o.Line, Pointer: o.Pointer, Message: o.ID + ": " + skip})
				continue
			}
			d.Operations = append(d.Operations, o)
		}
	}
	return problems
}

// build makes the operation's parameters schema; a reason is returned when
// the operation cannot be a tool.
func (o *Operation) build(r *resolver, pathParams []*v3.Parameter, op *v3.Operation) (skip string) {
	r.budget = schemaBudget
	props := map[string]any{}
	var required []any
	for _, p := range mergeParams(pathParams, op.Parameters) {
		switch p.In {
		case "path", "query", "header":
		default:
			continue // cookies are not sent: a model has none to give
		}
		if p.In == "header" && reservedHeader(p.Name) {
			continue // OpenAPI says these are ignored: toolstream sets them
		}
		prop := p.Name
		if _, taken := props[prop]; taken {
			prop = p.In + "_" + p.Name
		}
		s := r.schema(nil)
		if p.Schema != nil {
			s = r.schema(p.Schema.GoLow().GetValueNode())
		}
		if p.Description != "" {
			s["description"] = p.Description
		}
		props[prop] = s
		if p.In == "path" || p.Required != nil && *p.Required {
			required = append(required, prop)
		}
		o.Params = append(o.Params, newParam(p, prop))
	}
	if skip := o.body(r, op.RequestBody, props, &required); skip != "" {
		return skip
	}
	o.Parameters = map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		o.Parameters["required"] = required
	}
	return ""
}

// body adds the request body to the properties: its own properties when
// it is an object whose names are free, else a "body" property.
func (o *Operation) body(r *resolver, rb *v3.RequestBody, props map[string]any, required *[]any) string {
	if rb == nil || rb.Content == nil || rb.Content.Len() == 0 {
		return ""
	}
	o.BodyRequired = rb.Required != nil && *rb.Required
	var media *v3.MediaType
	for c := rb.Content.First(); c != nil; c = c.Next() {
		if isJSONMedia(c.Key()) {
			media = c.Value()
			break
		}
	}
	if media == nil {
		if o.BodyRequired {
			return "its request body is not JSON (" + strings.Join(mediaTypes(rb), ", ") + "): only JSON bodies are sent"
		}
		return "" // optional: the tool sends none
	}
	var s map[string]any
	if media.Schema != nil {
		s = r.schema(media.Schema.GoLow().GetValueNode())
	} else {
		s = r.schema(nil)
	}
	if rb.Description != "" && s["description"] == nil {
		s["description"] = rb.Description
	}
	if bodyProps, ok := flatObject(s); ok && free(bodyProps, props) {
		o.Body = FlatBody
		for k, v := range bodyProps {
			props[k] = v
		}
		if req, ok := s["required"].([]any); ok && o.BodyRequired {
			*required = append(*required, req...)
		}
		return ""
	}
	o.Body = WrappedBody
	props["body"] = s
	if o.BodyRequired {
		*required = append(*required, "body")
	}
	return ""
}

// flatObject returns the properties of a plain object schema: one whose
// shape is all in its properties (no allOf, oneOf, anyOf).
func flatObject(s map[string]any) (map[string]any, bool) {
	props, ok := s["properties"].(map[string]any)
	if !ok || len(props) == 0 {
		return nil, false
	}
	if t, has := s["type"]; has && t != "object" {
		return nil, false
	}
	for _, k := range []string{"allOf", "oneOf", "anyOf", "not", "if"} {
		if _, has := s[k]; has {
			return nil, false
		}
	}
	return props, true
}

// free reports whether none of the body's property names is taken by a
// parameter.
func free(body, taken map[string]any) bool {
	for k := range body {
		if _, dup := taken[k]; dup {
			return false
		}
	}
	return true
}

// mergeParams is the operation's parameters over the path item's: an
// operation's parameter replaces one of the same name and location.
func mergeParams(item, op []*v3.Parameter) []*v3.Parameter {
	out := make([]*v3.Parameter, 0, len(item)+len(op))
	for _, p := range item {
		overridden := false
		for _, q := range op {
			if q.Name == p.Name && q.In == p.In {
				overridden = true
			}
		}
		if !overridden {
			out = append(out, p)
		}
	}
	return append(out, op...)
}

// newParam fills in OpenAPI's serialization defaults: form (exploded)
// for query, simple for path and header.
func newParam(p *v3.Parameter, prop string) Param {
	style := p.Style
	if style == "" {
		style = "simple"
		if p.In == "query" {
			style = "form"
		}
	}
	explode := style == "form"
	if p.Explode != nil {
		explode = *p.Explode
	}
	return Param{Name: p.Name, In: p.In, Prop: prop, Style: style, Explode: explode}
}

func reservedHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Accept", "Content-Type", "Authorization":
		return true
	}
	return false
}

func isJSONMedia(mt string) bool {
	t, _, err := mime.ParseMediaType(mt)
	return err == nil && (t == "application/json" || strings.HasSuffix(t, "+json"))
}

func mediaTypes(rb *v3.RequestBody) []string {
	var out []string
	for c := rb.Content.First(); c != nil; c = c.Next() {
		out = append(out, c.Key())
	}
	return out
}

// joinText joins a summary and a description, leaving out a description
// that only repeats the summary.
func joinText(summary, description string) string {
	summary, description = strings.TrimSpace(summary), strings.TrimSpace(description)
	switch {
	case summary == "" || strings.HasPrefix(description, strings.TrimSuffix(summary, ".")):
		return description
	case description == "":
		return summary
	}
	if !strings.HasSuffix(summary, ".") {
		summary += "."
	}
	return summary + " " + description
}

// escapeToken escapes a JSON pointer token.
func escapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
