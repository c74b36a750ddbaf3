package config

import (
	"fmt"
	"strings"
)

// expand replaces ${VAR} and ${VAR:-default} in one scalar value
// (docs/configuration.md).
//
// It runs on the text of scalar nodes after YAML parsing, never on the raw
// file and never on keys, so an environment value containing ":", "#" or a
// newline stays one string and cannot change the document's structure
// (STYLE 4.7). The rules, shell-like:
//
//   - ${VAR} is the variable's value; set but empty gives "". Unset is a
//     problem naming the variable.
//   - ${VAR:-default} is the value when VAR is set and non-empty, else the
//     default text, taken literally up to the first "}" (no nesting).
//   - $${ writes a literal "${" (the escape docker compose uses); any other
//     "$" is kept as written, so "pa$$word" stays "pa$$word".
//   - Values are not expanded again: a variable holding "${X}" yields the
//     text "${X}".
//
// It returns the expanded text and a message per problem (syntax errors,
// unset variables); the text is only meaningful when there are none.
func expand(s string, lookup func(string) (string, bool)) (string, []string) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	var problems []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			break
		}
		if i > 0 && s[i-1] == '$' {
			// "$${" is the escape: keep one "$" and the literal "{".
			b.WriteString(s[:i-1])
			b.WriteString("${")
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			problems = append(problems, fmt.Sprintf("unterminated %q (write ${NAME} or ${NAME:-default}; $${ for a literal ${)", s[i:]))
			break
		}
		ref := s[i+2 : i+end]
		s = s[i+end+1:]
		name, def, hasDef := strings.Cut(ref, ":-")
		if !validVarName(name) {
			problems = append(problems, fmt.Sprintf("invalid reference ${%s} (write ${NAME} or ${NAME:-default} with NAME of letters, digits and _; $${ for a literal ${)", ref))
			continue
		}
		val, ok := lookup(name)
		switch {
		case hasDef && val == "":
			b.WriteString(def)
		case ok:
			b.WriteString(val)
		default:
			problems = append(problems, fmt.Sprintf("environment variable %s is not set (use ${%s:-} to allow empty)", name, name))
		}
	}
	return b.String(), problems
}

// validVarName reports whether name is a POSIX-style variable name.
func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range name {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// noEnv is the lookup used when Parse is given none: nothing is set.
func noEnv(string) (string, bool) { return "", false }
