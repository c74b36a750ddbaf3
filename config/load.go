package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Load reads the configuration file at path with the process environment
// for ${VAR} expansion. Every problem is returned at once as an [*Error];
// one that cannot read the file unwraps to the underlying error, so
// errors.Is(err, fs.ErrNotExist) tells a missing file apart.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{Problems: []Problem{{
			File: path, Message: "cannot read configuration: " + readError(err), err: err,
		}}}
	}
	return Parse(path, data, os.LookupEnv)
}

// readError is err without the path, which the problem already shows.
func readError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Parse decodes and validates a configuration. file names it in problems
// (and becomes Config.File); lookupEnv resolves ${VAR} (nil means nothing
// is set), which lets tests and "toolstream check" run without touching
// the process environment.
//
// The pipeline (STYLE 4.7): parse YAML into a node tree; decode it onto
// [Default], each upstreams entry onto [DefaultUpstreamEntry] and each
// tools entry onto [DefaultToolEntry], expanding ${VAR} in scalar values
// as they are read and rejecting unknown and duplicate keys; validate;
// collect [Config.Warnings]; then drop the empty entries of auth.keys and
// auth.admin_keys. A key
// absent from the file, or set to null, keeps its default; an explicit
// zero ("parse_retries: 0") is kept.
//
// An empty file (or one with only comments) is the default configuration.
// A file with more than one YAML document is an error.
func Parse(file string, data []byte, lookupEnv func(string) (string, bool)) (*Config, error) {
	doc, p := parseYAML(file, data)
	if p != nil {
		return nil, newError([]Problem{*p})
	}
	cfg := Default()
	cfg.File = file
	d := newDecoder(file, lookupEnv)
	d.lines = strings.Split(string(data), "\n")
	if doc != nil {
		d.pos[""] = position{doc.Line, doc.Column}
		d.decode(doc, reflect.ValueOf(&cfg).Elem(), "")
	}
	problems := d.problems
	if d.budget < 0 {
		// Decoding stopped part-way; validating the rest would only
		// complain about what was never read.
		msg := fmt.Sprintf("too large once aliases are expanded (over %d nodes and bytes); use fewer aliases", maxWork)
		if len(problems) >= maxProblems {
			msg = fmt.Sprintf("stopped after %d problems; fix these first", maxProblems)
		}
		problems = append(problems, Problem{File: file, Message: msg})
		return nil, newError(problems)
	}
	for _, p := range cfg.check(d.locate) {
		if d.covers(p.Path) {
			continue // a derived complaint about a value that did not decode
		}
		problems = append(problems, d.place(p))
	}
	if err := newError(problems); err != nil {
		return nil, err
	}
	for _, w := range cfg.warnings() {
		cfg.Warnings = append(cfg.Warnings, d.place(w))
	}
	sortProblems(cfg.Warnings)
	cfg.Places = &Places{pos: d.pos}
	cfg.Auth.Keys = dropEmptyKeys(cfg.Auth.Keys)
	cfg.Auth.AdminKeys = dropEmpty(cfg.Auth.AdminKeys)
	return &cfg, nil
}

// ProblemAt is a problem found outside this package about the value at
// path (a key path as in [Problem.Path]), placed where the file writes
// it or its nearest written ancestor: "toolstream check" reporting an
// openapi_tools document at its entry.
func (c *Config) ProblemAt(path, message string) Problem {
	p := Problem{File: c.File, Path: path, Message: message}
	if c.Places != nil {
		d := decoder{pos: c.Places.pos}
		pos := d.locate(path)
		p.Line, p.Col = pos.line, pos.col
	}
	return p
}

// Places maps the key paths of a configuration file to where they are
// written.
type Places struct {
	pos map[string]position
}

// Equal reports true: where keys are written is no part of what a
// configuration means, so two configurations compare by their values
// alone (go-cmp uses this method).
func (*Places) Equal(*Places) bool { return true }

// parseYAML returns the root node of the only document in data, nil for
// an empty document, or a problem.
func parseYAML(file string, data []byte) (*yaml.Node, *Problem) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if p := indentProblem(file, data); p != nil {
			p.err = err
			return nil, p
		}
		return nil, syntaxProblem(file, err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, &Problem{File: file, Line: next.Line, Col: next.Column,
			Message: "a second YAML document (after ---); put the whole configuration in one"}
	case !errors.Is(err, io.EOF):
		return nil, syntaxProblem(file, err)
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return nil, nil
	}
	return doc.Content[0], nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxProblem turns a yaml.v3 error ("yaml: line 3: mapping values are
// not allowed in this context") into a problem at that line. The parser
// gives no column.
func syntaxProblem(file string, err error) *Problem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	return &Problem{File: file, Line: line, Message: "invalid YAML: " + msg, err: err}
}

// locate returns where path is written, or where its nearest written
// ancestor is: a missing "upstreams[1].name" is reported at upstreams[1].
func (d *decoder) locate(path string) position {
	for {
		if p, ok := d.pos[path]; ok {
			return p
		}
		if path == "" {
			return position{}
		}
		path = parent(path)
	}
}

// place gives p the position of its path.
func (d *decoder) place(p Problem) Problem {
	pos := d.locate(p.Path)
	p.Line, p.Col = pos.line, pos.col
	if n := d.scalars[p.Path]; n != nil && p.inLine > 0 {
		p.Line, p.Col = d.placeInside(n, p.inLine, p.inCol)
	}
	return p
}

// placeInside is the file's line and column of the character at line and
// col (1-based) of scalar n's value. A quoted value starts one column
// after its quote; a block value (| or >) on the line after its
// indicator, at its indentation. Escapes in a double-quoted value are
// not counted: the column is then near, not exact.
func (d *decoder) placeInside(n *yaml.Node, line, col int) (int, int) {
	if col < 1 {
		col = 1
	}
	switch n.Style {
	case yaml.LiteralStyle, yaml.FoldedStyle:
		// The value's indentation is its first line's; deeper lines
		// keep their extra spaces in the value, so col counts them.
		indent := 0
		if first := n.Line; first < len(d.lines) {
			indent = len(d.lines[first]) - len(strings.TrimLeft(d.lines[first], " "))
		}
		return n.Line + line, indent + col
	case yaml.SingleQuotedStyle, yaml.DoubleQuotedStyle:
		if line == 1 {
			return n.Line, n.Column + col
		}
	default:
		if line == 1 {
			return n.Line, n.Column + col - 1
		}
	}
	// A later line of a flow scalar: its own indentation.
	l := n.Line + line - 1
	indent := 0
	if l-1 < len(d.lines) {
		indent = len(d.lines[l-1]) - len(strings.TrimLeft(d.lines[l-1], " "))
	}
	return l, indent + col
}

// parent drops the last key or index of a path.
func parent(path string) string {
	if strings.HasSuffix(path, "]") {
		if i := strings.LastIndexByte(path, '['); i >= 0 {
			return path[:i]
		}
	}
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return ""
}

// covers reports whether path is, or is inside, a path that already
// failed to decode.
func (d *decoder) covers(path string) bool {
	for _, f := range d.failed {
		if f == "" || path == f || strings.HasPrefix(path, f+".") || strings.HasPrefix(path, f+"[") {
			return true
		}
	}
	return false
}

func dropEmpty(keys []Secret) []Secret {
	out := keys[:0:0]
	for _, k := range keys {
		if k != "" {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
