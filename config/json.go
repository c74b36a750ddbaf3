package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
)

// JSON decoding of a tools entry, for tools registered at runtime through
// the admin API: the body is the file's tools entry written as JSON, with
// the YAML keys as field names. It is strict like the file (unknown and
// duplicate fields are problems naming the field) and reports every
// problem at once with its path. Unlike the file, values are taken as
// written: ${VAR} is not expanded, so an admin request cannot read the
// proxy's environment into a webhook header.

// UnmarshalJSON reads a tools entry written as JSON onto t. Fields that
// are absent or null keep t's values: decode onto [DefaultToolEntry] to
// get the defaults of the file. Durations are strings ("10s"); sizes are
// strings ("64KiB") or a number of bytes; parameters is a JSON object,
// kept with its key order. The error is an [*Error] listing every problem
// with its path ("webhook.timeout"); t is left unchanged then. null
// changes nothing. The tool is not validated: [CheckTool] does that.
func (t *Tool) UnmarshalJSON(data []byte) error {
	if jsonKind(data) == "null" {
		return nil // encoding/json's convention for Unmarshalers
	}
	d := &jsonDecoder{}
	next := *t
	d.tool(data, &next)
	if err := newError(d.problems); err != nil {
		return err
	}
	*t = next
	return nil
}

// UnmarshalJSON reads a webhook written as JSON onto w, with the rules of
// [Tool.UnmarshalJSON].
func (w *Webhook) UnmarshalJSON(data []byte) error {
	if jsonKind(data) == "null" {
		return nil
	}
	d := &jsonDecoder{}
	next := *w
	d.webhook("", data, &next)
	if err := newError(d.problems); err != nil {
		return err
	}
	*w = next
	return nil
}

// UnmarshalJSON reads a size written as a string ("64KiB", see
// [ParseSize]) or as a whole number of bytes. null leaves s unchanged.
func (s *Size) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	var text string
	switch kind := jsonKind(data); kind {
	case "null":
		return nil
	case "a string":
		if err := json.Unmarshal(data, &text); err != nil {
			return err
		}
	case "a number":
		text = string(data) // ParseSize explains "-1" and "1.5"
	default:
		return fmt.Errorf(`want a size like "64KiB" or a number of bytes, got %s`, kind)
	}
	n, err := ParseSize(text)
	if err != nil {
		return err
	}
	*s = n
	return nil
}

// jsonDecoder collects the problems of one JSON document.
type jsonDecoder struct {
	problems []Problem
}

func (d *jsonDecoder) add(path, format string, args ...any) {
	d.problems = append(d.problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// jsonField is one member of a JSON object, in the order written.
type jsonField struct {
	key string
	val json.RawMessage
}

var (
	toolFields    = yamlFields(reflect.TypeFor[Tool]())
	webhookFields = yamlFields(reflect.TypeFor[Webhook]())
)

func (d *jsonDecoder) tool(data []byte, t *Tool) {
	d.object("", data, toolFields, func(f jsonField) {
		switch f.key {
		case "name":
			d.value(f.key, f.val, "a string", &t.Name)
		case "description":
			d.value(f.key, f.val, "a string", &t.Description)
		case "parameters":
			if jsonKind(f.val) != "an object" {
				d.add(f.key, "want a JSON Schema object with type: object, got %s", jsonKind(f.val))
				return
			}
			var buf bytes.Buffer
			_ = json.Compact(&buf, f.val) // valid: object checked it
			t.Parameters = buf.Bytes()
		case "webhook":
			if jsonKind(f.val) == "null" {
				return
			}
			w := &Webhook{}
			if t.Webhook != nil {
				*w = *t.Webhook // the caller's: change a copy
			}
			d.webhook(f.key, f.val, w)
			t.Webhook = w
		case "idempotent":
			d.value(f.key, f.val, "true or false", &t.Idempotent)
		case "approval":
			d.value(f.key, f.val, "a string", &t.Approval)
		case "max_result_bytes":
			if err := t.MaxResultBytes.UnmarshalJSON(f.val); err != nil {
				d.add(f.key, "%v", err)
			}
		case "redact":
			d.strings(f.key, f.val, &t.Redact)
		}
	})
}

// webhook decodes the webhook object at path onto w.
func (d *jsonDecoder) webhook(path string, data []byte, w *Webhook) {
	d.object(path, data, webhookFields, func(f jsonField) {
		switch f.key {
		case "url":
			d.value(join(path, f.key), f.val, "a string", &w.URL)
		case "headers":
			d.headers(join(path, f.key), f.val, &w.Headers)
		case "secret":
			d.value(join(path, f.key), f.val, "a string", &w.Secret)
		case "timeout":
			switch kind := jsonKind(f.val); kind {
			case "null":
			case "a string", "a number":
				// A number goes through parseDuration too, for its
				// advice: 10 → "has no unit (write 10s, 10m or 10h)".
				text := string(f.val)
				if kind == "a string" {
					_ = json.Unmarshal(f.val, &text)
				}
				if dur, err := parseDuration(text); err != nil {
					d.add(join(path, f.key), "%v", err)
				} else {
					w.Timeout = dur
				}
			default:
				d.add(join(path, f.key), `want a duration like "10s", got %s`, kind)
			}
		}
	})
}

// headers decodes an object of header values; names are checked by
// [CheckTool], with the file's rules.
func (d *jsonDecoder) headers(path string, data []byte, dst *map[string]Secret) {
	if jsonKind(data) == "null" {
		return
	}
	h := map[string]Secret{}
	d.object(path, data, nil, func(f jsonField) {
		var v string
		d.value(join(path, f.key), f.val, "a string", &v)
		h[f.key] = Secret(v)
	})
	*dst = h
}

// strings decodes a list of strings, naming the entry of the wrong type.
func (d *jsonDecoder) strings(p string, data []byte, dst *[]string) {
	var items []json.RawMessage
	switch kind := jsonKind(data); kind {
	case "null":
		return
	case "a list":
		_ = json.Unmarshal(data, &items) // valid: object checked it
	default:
		d.add(p, "want a list of strings, got %s", kind)
		return
	}
	out := make([]string, len(items))
	for i, item := range items {
		d.value(p+"["+strconv.Itoa(i)+"]", item, "a string", &out[i])
	}
	*dst = out
}

// object calls f for each field of a JSON object in the order written,
// after reporting a document that is not an object, duplicate fields and,
// unless known is nil, fields not in known.
func (d *jsonDecoder) object(path string, data []byte, known map[string]int, f func(jsonField)) {
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		d.add(path, "not valid JSON: %v", err)
		return
	}
	if kind := jsonKind(data); kind != "an object" {
		d.add(path, "want a JSON object, got %s", kind)
		return
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	_, _ = dec.Token() // the '{': data is a valid object
	seen := map[string]bool{}
	for dec.More() {
		tok, _ := dec.Token()
		key, _ := tok.(string)
		var val json.RawMessage
		_ = dec.Decode(&val)
		p := join(path, key)
		if _, ok := known[key]; !ok && known != nil {
			d.add(p, "unknown field%s", suggest(key, known))
			continue
		}
		if seen[key] {
			d.add(p, "duplicate field")
			continue
		}
		seen[key] = true
		f(jsonField{key, val})
	}
}

// value decodes the value at path p into dst; null leaves dst as it was.
// want says what p takes, for the message when the value has the wrong
// type.
func (d *jsonDecoder) value(p string, data []byte, want string, dst any) {
	if jsonKind(data) == "null" {
		return
	}
	if err := json.Unmarshal(data, dst); err != nil {
		d.add(p, "want %s, got %s", want, jsonKind(data))
	}
}

// jsonKind names the kind of a JSON value, for messages: "an object", "a
// list", "a string", "a number", "true or false", "null", or "not valid
// JSON".
func jsonKind(data []byte) string {
	if !json.Valid(data) {
		return "not valid JSON"
	}
	data = bytes.TrimSpace(data)
	switch c := data[0]; {
	case c == '{':
		return "an object"
	case c == '[':
		return "a list"
	case c == '"':
		return "a string"
	case c == 't', c == 'f':
		return "true or false"
	case c == 'n':
		return "null"
	}
	return "a number"
}
