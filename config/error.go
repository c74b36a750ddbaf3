package config

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Error is every problem found in one configuration. [Load], [Parse] and
// [Config.Validate] return it (as error) instead of stopping at the first
// problem, so that one run of "toolstream check" shows everything to fix.
// Use errors.As to get at the list.
type Error struct {
	// Problems are sorted by line, then column; problems without a
	// position (a file that cannot be read, a config built in code) come
	// first, in the order they were found.
	Problems []Problem
}

// Problem is one thing wrong with a configuration.
type Problem struct {
	// File is the configuration file; empty for a config built in code.
	File string
	// Line and Col are 1-based; zero when the problem is not tied to a
	// place in the file (Col is zero too for YAML syntax errors, whose
	// parser reports only a line).
	Line, Col int
	// Path is the key in docs/configuration.md notation, e.g.
	// "tools[2].webhook.timeout"; empty for problems with the file as a whole.
	Path string
	// Message names the rule broken and, where there is one, the fix.
	Message string
	// Warning marks a likely mistake that does not stop the configuration
	// from loading (see [Config.Warnings]); String then says "warning:".
	Warning bool

	// err is the underlying error, when there is one (reading the file),
	// so that errors.Is(err, fs.ErrNotExist) works through [Error].
	err error
	// inLine and inCol place the problem inside the scalar value of Path
	// (1-based; 0 unknown): a CEL or RE2 error's place in its expression.
	inLine, inCol int
}

// String formats the problem the way compilers do, so editors can jump to
// it: "toolstream.yaml:41:7: tools[2].webhook.timeout: must be positive,
// got -1s". Parts that are unknown are left out.
func (p Problem) String() string {
	var b strings.Builder
	loc := p.File
	if p.Line > 0 {
		if loc != "" {
			loc += ":"
		}
		loc += strconv.Itoa(p.Line)
		if p.Col > 0 {
			loc += ":" + strconv.Itoa(p.Col)
		}
	}
	if loc != "" {
		b.WriteString(loc)
		b.WriteString(": ")
	}
	if p.Warning {
		// After the position, as compilers write it, so that editors
		// still jump to the place.
		b.WriteString("warning: ")
	}
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Error prints one problem per line.
func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the underlying errors of the problems that have one, such
// as the *fs.PathError of a file that could not be read.
func (e *Error) Unwrap() []error {
	var errs []error
	for _, p := range e.Problems {
		if p.err != nil {
			errs = append(errs, p.err)
		}
	}
	return errs
}

// newError sorts problems by position and wraps them; nil when there are
// none, so callers can return its result directly.
func newError(problems []Problem) error {
	if len(problems) == 0 {
		return nil
	}
	sortProblems(problems)
	return &Error{Problems: problems}
}

// sortProblems puts problems in file order; those without a position
// first, in the order they were found.
func sortProblems(problems []Problem) {
	slices.SortStableFunc(problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
}
