package proxy

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/toolstream/toolstream/config"
)

// unknownField finds the first field of the JSON object body that its
// Go type t does not have, looking into the fields that are structs too,
// and says which field was likely meant: "unknown field \"tool\"; did
// you mean \"tools\"?", the admin's answer to a typo that
// encoding/json's own error ("json: unknown field") leaves to guess. nil
// when every field is known or body is no object (the decoder says
// what is wrong then).
func unknownField(body []byte, t reflect.Type) *keySpecError {
	return unknownFieldAt(body, t, "")
}

func unknownFieldAt(body []byte, t reflect.Type, at string) *keySpecError {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return nil
	}
	fields := jsonFields(t)
	names := slices.Sorted(maps.Keys(fields))
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		ft, ok := fields[k]
		if !ok {
			msg := fmt.Sprintf("unknown field %q", k)
			if meant := config.Closest(strings.ToLower(k), names); meant != "" {
				msg += fmt.Sprintf("; did you mean %q?", meant)
			} else {
				msg += " (the fields are " + strings.Join(names, ", ") + ")"
			}
			return &keySpecError{param: at + k, msg: msg}
		}
		if ft.Kind() == reflect.Struct {
			if e := unknownFieldAt(obj[k], ft, at+k+"."); e != nil {
				return e
			}
		}
	}
	return nil
}

// jsonFields maps the JSON names of struct type t's fields (pointers
// followed) to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		out[name] = ft
	}
	return out
}
