package config_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
)

// referenceFile is the configuration reference users read.
const referenceFile = "../docs/configuration.md"

// TestReferenceMatchesStructs: docs/configuration.md documents exactly the
// keys the config structs decode, each with the default the code applies.
// Adding a key without documenting it, documenting one that does not
// exist, or changing a default without the docs fails here.
func TestReferenceMatchesStructs(t *testing.T) {
	data, err := os.ReadFile(referenceFile)
	if err != nil {
		t.Fatal(err)
	}
	documented := referenceRows(string(data))
	want := structKeys()

	for _, k := range want {
		doc, ok := documented[k.path]
		if !ok {
			t.Errorf("%s: key %s (default %s) is not documented; add a row:\n| `%s` | %s | … |", referenceFile, k.path, k.def, k.path, k.def)
			continue
		}
		if doc != k.def {
			t.Errorf("%s: key %s documents default %s, the code's is %s", referenceFile, k.path, doc, k.def)
		}
	}
	known := map[string]bool{}
	for _, k := range want {
		known[k.path] = true
	}
	for path := range documented {
		if !known[path] {
			t.Errorf("%s: documents %s, which is not a config key", referenceFile, path)
		}
	}
}

// rowRE matches a reference table row: | `key` | default | description |.
var rowRE = regexp.MustCompile("^\\| `([a-z_\\[\\]<>.]+)` \\| ([^|]*) \\|")

// referenceRows maps each key documented in a "| Key | Default | Meaning |"
// table to its default column; other tables (the LiteLLM mapping) are not
// the reference.
func referenceRows(doc string) map[string]string {
	out := map[string]string{}
	inTable := false
	for line := range strings.Lines(doc) {
		switch {
		case strings.HasPrefix(line, "| Key | Default |"):
			inTable = true
		case !strings.HasPrefix(line, "|"):
			inTable = false
		case inTable:
			if m := rowRE.FindStringSubmatch(line); m != nil {
				out[m[1]] = strings.TrimSpace(m[2])
			}
		}
	}
	return out
}

type structKey struct{ path, def string }

// structKeys walks the config structs the way the decoder does: yaml tags,
// list entries as [], free-keyed mappings as <name>.
func structKeys() []structKey {
	var out []structKey
	var walk func(t reflect.Type, v reflect.Value, prefix string)
	walk = func(t reflect.Type, v reflect.Value, prefix string) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			path := prefix + name
			fv := v.Field(i)
			ft := f.Type
			if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
				ft = ft.Elem()
				fv = reflect.New(ft).Elem()
			}
			switch {
			case ft.Kind() == reflect.Struct && ft != reflect.TypeFor[config.Model]():
				walk(ft, fv, path+".")
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
				out = append(out, structKey{path, renderDefault(fv)})
				elem := ft.Elem()
				walk(elem, entryDefault(elem), path+"[].")
			case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct:
				out = append(out, structKey{path, renderDefault(fv)})
				walk(ft.Elem(), reflect.New(ft.Elem()).Elem(), path+".<name>.")
			default:
				out = append(out, structKey{path, renderDefault(fv)})
			}
		}
	}
	walk(reflect.TypeFor[config.Config](), reflect.ValueOf(config.Default()), "")
	slices.SortFunc(out, func(a, b structKey) int { return strings.Compare(a.path, b.path) })
	return out
}

// entryDefault is what a list entry starts from before its keys are read.
func entryDefault(t reflect.Type) reflect.Value {
	switch t {
	case reflect.TypeFor[config.Upstream]():
		return reflect.ValueOf(config.DefaultUpstreamEntry())
	case reflect.TypeFor[config.Tool]():
		return reflect.ValueOf(config.DefaultToolEntry())
	case reflect.TypeFor[config.MCPServer]():
		return reflect.ValueOf(config.DefaultMCPServerEntry())
	case reflect.TypeFor[config.OpenAPITools]():
		return reflect.ValueOf(config.DefaultOpenAPIEntry())
	}
	return reflect.New(t).Elem()
}

// renderDefault writes a default the way the reference does: — for none,
// else the value as one would write it in YAML, in backticks.
func renderDefault(v reflect.Value) string {
	if v.Kind() == reflect.Bool {
		return fmt.Sprintf("`%t`", v.Bool())
	}
	if v.IsZero() {
		return "—"
	}
	var s string
	switch x := v.Interface().(type) {
	case time.Duration:
		// 10m0s is written 10m, 720h0m0s 720h.
		s = x.String()
		if strings.HasSuffix(s, "m0s") {
			s = strings.TrimSuffix(s, "0s")
		}
		if strings.HasSuffix(s, "h0m") {
			s = strings.TrimSuffix(s, "0m")
		}
	case config.Size:
		s = x.String()
	case json.RawMessage:
		s = string(x)
	case []string:
		b, _ := json.Marshal(x)
		s = string(b)
	default:
		s = fmt.Sprint(x)
	}
	return "`" + s + "`"
}
