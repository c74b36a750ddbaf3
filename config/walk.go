package config

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// decoder walks a yaml.Node tree into the config structs. It exists
// instead of yaml.Node.Decode because we need what that cannot give:
// every problem at once with its line:col, unknown and duplicate keys
// rejected at every level, ${VAR} expanded in scalar values only, and
// slice entries decoded on top of their defaults.
type decoder struct {
	file     string
	lookup   func(string) (string, bool)
	problems []Problem
	// pos maps each decoded path to where it is written (see
	// entryPosition); validation problems are placed with it. Paths
	// inside tool parameters are not recorded.
	pos map[string]position
	// scalars keeps the nodes of policies' values, whose problems are
	// placed at a character inside them (see placeInside).
	scalars map[string]*yaml.Node
	// lines is the file's text by line, for placeInside.
	lines []string
	// failed lists paths that already have a decoding problem, so that
	// validation does not pile a second, derived complaint on them.
	failed []string
	// expanded remembers scalars already expanded: an aliased node is
	// visited once per alias, and its problems should be reported once.
	expanded map[*yaml.Node]expansion
	// budget is how much more may be read. Aliases are followed on every
	// use, so a few lines of nested anchors could otherwise ask for
	// billions of nodes ("billion laughs"). Below zero, decoding stops.
	budget int
}

// maxWork bounds what one file may expand to, counted as one unit per
// node plus one per byte of keys and scalars: far beyond any real
// configuration, tool schemas included, and far below what hurts.
const maxWork = 4 << 20

// maxProblems stops a run that has found more problems than anyone will
// read; the first ones are the ones to fix.
const maxProblems = 1000

// spend takes cost from the budget; false once it is gone.
func (d *decoder) spend(cost int) bool {
	d.budget -= cost
	return d.budget >= 0
}

type position struct{ line, col int }

type expansion struct {
	value string
	ok    bool
}

func newDecoder(file string, lookup func(string) (string, bool)) *decoder {
	if lookup == nil {
		lookup = noEnv
	}
	return &decoder{
		file:     file,
		lookup:   lookup,
		pos:      map[string]position{},
		scalars:  map[string]*yaml.Node{},
		expanded: map[*yaml.Node]expansion{},
		budget:   maxWork,
	}
}

// errorf records a problem at n and marks path as failed. A problem with
// a mapping or list value is placed where path is written (its key), not
// at the first line inside the block.
func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) {
	at := position{n.Line, n.Column}
	if p, ok := d.pos[path]; ok && n.Kind != yaml.ScalarNode {
		at = p
	}
	d.report(at, path, format, args...)
}

// report records a problem at a position and marks path as failed.
func (d *decoder) report(at position, path, format string, args ...any) {
	d.note(at, path, format, args...)
	d.failed = append(d.failed, path)
}

// note records a problem without failing path: the value still stands.
func (d *decoder) note(at position, path, format string, args ...any) {
	if len(d.problems) >= maxProblems {
		d.budget = -1 // stop here
		return
	}
	d.problems = append(d.problems, Problem{
		File: d.file, Line: at.line, Col: at.col, Path: path,
		Message: fmt.Sprintf(format, args...),
	})
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	sizeType     = reflect.TypeFor[Size]()
	rawJSONType  = reflect.TypeFor[json.RawMessage]()
	modelType    = reflect.TypeFor[Model]()
	keyType      = reflect.TypeFor[ClientKey]()
	secretType   = reflect.TypeFor[Secret]()
)

// entryDefaults gives the starting value of a sequence entry, so that a key
// left out of one upstream or tool keeps its default (docs/configuration.md).
var entryDefaults = map[reflect.Type]func() reflect.Value{
	reflect.TypeFor[Upstream]():     func() reflect.Value { return reflect.ValueOf(DefaultUpstreamEntry()) },
	reflect.TypeFor[Tool]():         func() reflect.Value { return reflect.ValueOf(DefaultToolEntry()) },
	reflect.TypeFor[MCPServer]():    func() reflect.Value { return reflect.ValueOf(DefaultMCPServerEntry()) },
	reflect.TypeFor[OpenAPITools](): func() reflect.Value { return reflect.ValueOf(DefaultOpenAPIEntry()) },
}

// decode stores n into v. A null node (absent value, "~", "null") leaves
// v as it was, i.e. at its default; any other value, including an empty
// string or an explicit zero, replaces it.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) {
	n = resolve(n)
	if isNull(n) || !d.spend(1+len(n.Value)) {
		return
	}
	switch v.Type() {
	case durationType:
		if s, ok := d.scalar(n, path, "a duration like 30s"); ok {
			if dur, err := parseDuration(s); err != nil {
				d.errorf(n, path, "%v", err)
			} else {
				v.SetInt(int64(dur))
			}
		}
		return
	case sizeType:
		if s, ok := d.scalar(n, path, "a size like 64KiB"); ok {
			if size, err := ParseSize(s); err != nil {
				d.errorf(n, path, "%v", err)
			} else {
				v.SetInt(int64(size))
			}
		}
		return
	case rawJSONType:
		if js, ok := d.schemaJSON(n, path); ok {
			v.SetBytes(js)
		}
		return
	case modelType:
		// A models entry is a pattern string, or an alias mapping.
		if n.Kind == yaml.ScalarNode {
			if s, ok := d.scalar(n, path, "a model pattern"); ok {
				v.Set(reflect.ValueOf(Model{Name: s}))
			}
			return
		}
		if n.Kind != yaml.MappingNode {
			d.errorf(n, path, "want a model pattern like gpt-* or an alias like {name: fast, model: qwen2.5:7b}, got a %s", kindName(n))
			return
		}
	case keyType:
		d.clientKey(n, v, path)
		return
	}
	switch v.Kind() {
	case reflect.String:
		if s, ok := d.scalar(n, path, "a string"); ok {
			v.SetString(s)
		}
	case reflect.Bool:
		if s, ok := d.scalar(n, path, "true or false"); ok {
			switch strings.ToLower(s) {
			case "true":
				v.SetBool(true)
			case "false":
				v.SetBool(false)
			default:
				d.errorf(n, path, "want true or false, got %q", s)
			}
		}
	case reflect.Int:
		if s, ok := d.scalar(n, path, "an integer"); ok {
			if i, err := strconv.ParseInt(s, 10, 0); err != nil {
				d.errorf(n, path, "want an integer, got %q", s)
			} else {
				v.SetInt(i)
			}
		}
	case reflect.Float64:
		if s, ok := d.scalar(n, path, "a number"); ok {
			if f, err := strconv.ParseFloat(s, 64); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				d.errorf(n, path, "want a number, got %q", s)
			} else {
				v.SetFloat(f)
			}
		}
	case reflect.Struct:
		d.structure(n, v, path)
	case reflect.Slice:
		d.sequence(n, v, path)
	case reflect.Map:
		d.mapping(n, v, path)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		d.decode(n, p.Elem(), path)
		v.Set(p)
	default:
		// Only reachable when a field of a new type is added to Config.
		panic("config: no decoder for " + v.Type().String())
	}
}

// scalar returns n's text with ${VAR} expanded. want says what the key
// takes, for the message when n is a mapping or sequence instead.
func (d *decoder) scalar(n *yaml.Node, path, want string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, path, "want %s, got a %s", want, kindName(n))
		return "", false
	}
	if e, ok := d.expanded[n]; ok {
		return e.value, e.ok
	}
	if name, ok := strings.CutPrefix(n.Value, "os.environ/"); ok {
		// LiteLLM's secret syntax: taken literally it
		// would become the key itself, so say what to write instead.
		d.errorf(n, path, "%q is LiteLLM syntax; write ${%s}", n.Value, name)
		d.expanded[n] = expansion{}
		return "", false
	}
	s, problems := expand(n.Value, d.lookup)
	for _, p := range problems {
		d.errorf(n, path, "%s", p)
	}
	d.expanded[n] = expansion{s, len(problems) == 0}
	return s, len(problems) == 0
}

// structure decodes a mapping into a struct by the fields' yaml tags.
func (d *decoder) structure(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want a mapping of keys, got a %s", kindName(n))
		return
	}
	fields := yamlFields(v.Type())
	d.entries(n, path, func(key string, k, val *yaml.Node, p string) {
		i, ok := fields[key]
		if !ok {
			d.errorf(k, p, "unknown key%s", suggest(key, fields))
			return
		}
		d.decode(val, v.Field(i), p)
	})
}

// mapping decodes a mapping with free keys (headers) into a map. Keys are
// taken as written, never expanded.
func (d *decoder) mapping(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want a mapping, got a %s", kindName(n))
		return
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	d.entries(n, path, func(key string, _, val *yaml.Node, p string) {
		e := reflect.New(v.Type().Elem()).Elem()
		d.decode(val, e, p)
		m.SetMapIndex(reflect.ValueOf(key).Convert(v.Type().Key()), e)
	})
	v.Set(m)
}

// entries calls f for each key/value pair of a mapping, after rejecting
// keys that are not scalars, merge keys and duplicates, and recording
// where each key is written.
func (d *decoder) entries(n *yaml.Node, path string, f func(key string, k, v *yaml.Node, p string)) {
	seen := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := resolve(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.report(position{k.Line, k.Column}, path, "a key must be a plain string, got a %s", kindName(k))
			continue
		}
		p := join(path, k.Value)
		if k.ShortTag() == "!!merge" {
			d.errorf(k, p, "merge keys (<<) are not supported; write the keys out")
			continue
		}
		if !d.spend(len(k.Value)) {
			return
		}
		if first, dup := seen[k.Value]; dup {
			// Not failed: the first value stands and is still validated.
			d.note(position{k.Line, k.Column}, p, "duplicate key (first at line %d)", first.Line)
			continue
		}
		seen[k.Value] = k
		d.pos[p] = entryPosition(k, val)
		if val.Kind == yaml.ScalarNode && strings.HasPrefix(p, "policies[") {
			d.scalars[p] = val // a CEL or RE2 problem points inside it
		}
		f(k.Value, k, val, p)
	}
}

// sequence decodes a sequence into a slice; entries of upstreams and tools
// start from their defaults.
func (d *decoder) sequence(n *yaml.Node, v reflect.Value, path string) {
	t := v.Type().Elem()
	if n.Kind == yaml.ScalarNode {
		if t == keyType || t == secretType {
			// The value is likely a key: say what to write without it.
			d.errorf(n, path, "want a list, got a single value (write it in [ ] for a list of one)")
			return
		}
		d.errorf(n, path, "want a list, got the single value %q (write [%q] for a list of one)", n.Value, n.Value)
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "want a list, got a %s", kindName(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		p := path + "[" + strconv.Itoa(i) + "]"
		d.pos[p] = position{item.Line, item.Column}
		if def, ok := entryDefaults[t]; ok {
			s.Index(i).Set(def())
		}
		d.decode(item, s.Index(i), p)
	}
	v.Set(s)
}

// entryPosition is where problems with a mapping entry are reported: at
// the value when it is written inline ("timeout: -1s" points at -1s, the
// thing to fix), else at the key that opens the block.
func entryPosition(k, v *yaml.Node) position {
	if r := resolve(v); r.Kind == yaml.ScalarNode && !isNull(r) {
		return position{v.Line, v.Column}
	}
	return position{k.Line, k.Column}
}

// yamlFields maps yaml key names to field indexes; "-" fields are skipped.
func yamlFields(t reflect.Type) map[string]int {
	m := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			m[name] = i
		}
	}
	return m
}

// parseDuration is time.ParseDuration with the mistakes people make in
// YAML turned into advice.
func parseDuration(s string) (time.Duration, error) {
	digits := strings.TrimLeft(s, "+-")
	if digits != "" && strings.Trim(digits, "0123456789") == "" && strings.Trim(digits, "0") != "" {
		// yaml.v3 also refuses a bare integer for a Duration: is "30"
		// seconds or nanoseconds? Zero alone is unambiguous and allowed.
		return 0, fmt.Errorf("duration %q has no unit (write %ss, %sm or %sh)", s, s, s, s)
	}
	if n, ok := strings.CutSuffix(digits, "d"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
		days, _ := strconv.Atoi(n)
		return 0, fmt.Errorf("duration %q: Go durations have no day unit (write %dh)", s, days*24)
	}
	dur, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (want a Go duration like 30s, 5m or 720h)", s)
	}
	return dur, nil
}

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "scalar"
	default:
		return "node of kind " + strconv.Itoa(int(n.Kind))
	}
}

// join appends a key to a path in the configuration reference's notation: "loop" + "keepalive".
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
