package config

import (
	"fmt"
	"strings"
)

// The YAML parser reports an indentation mistake where it noticed it,
// which is often the line of an enclosing key ("line 2: did not find
// expected key") and never with a column. indentProblem finds the line
// itself by following the indentation levels the way a reader does, so
// the message can say which line to fix and how.

// level is an open indentation level and the last line written at it.
type level struct {
	indent int
	line   int
}

// indentProblem returns the first line whose indentation cannot be right,
// or nil when it finds none (the syntax error is then something else).
func indentProblem(file string, data []byte) *Problem {
	var (
		levels []level // open indentation levels, outermost first
		// opens says the previous line leaves a value to come below it
		// ("key:", "- key:", "-"), so a deeper line is its content.
		opens bool
		// scalar is the indentation of the key that started a block
		// scalar (| or >); deeper lines are its text.
		scalar = -1
		// flow counts unclosed [ and { of a flow collection spanning
		// lines, inside which indentation is free.
		flow int
	)
	for i, raw := range strings.Split(string(data), "\n") {
		n := i + 1
		text := strings.TrimRight(raw, " \r")
		body := strings.TrimLeft(text, " ")
		indent := len(text) - len(body)
		if body == "" || strings.HasPrefix(body, "#") {
			continue
		}
		if scalar >= 0 && indent > scalar {
			continue
		}
		scalar = -1
		if flow > 0 {
			flow += strings.Count(body, "[") + strings.Count(body, "{") - strings.Count(body, "]") - strings.Count(body, "}")
			continue
		}
		if strings.HasPrefix(body, "\t") {
			return &Problem{File: file, Line: n, Col: indent + 1,
				Message: "invalid YAML indentation: a tab; YAML indents with spaces only"}
		}
		if body == "---" || body == "..." {
			levels, opens = nil, false
			continue
		}
		all := levels
		for len(levels) > 0 && levels[len(levels)-1].indent > indent {
			levels = levels[:len(levels)-1]
		}
		popped := len(levels) < len(all)
		top := -1
		if len(levels) > 0 {
			top = levels[len(levels)-1].indent
		}
		switch {
		case popped && indent > top:
			return &Problem{File: file, Line: n, Col: indent + 1, Message: fmt.Sprintf(
				"invalid YAML indentation: this line is indented %s, which matches no enclosing level (%s)",
				spaces(indent), levelList(all))}
		case indent > top && top >= 0 && !opens:
			return &Problem{File: file, Line: n, Col: indent + 1, Message: fmt.Sprintf(
				"invalid YAML indentation: this line is indented %s, more than line %d (%s) whose value is already complete; align it with the keys beside it",
				spaces(indent), levels[len(levels)-1].line, spaces(top))}
		case indent > top:
			levels = append(levels, level{indent, n})
		default:
			levels[len(levels)-1].line = n
		}
		// A sequence item's content is a level of its own: "- name: a"
		// puts name two columns in, where its siblings go.
		item := body
		for strings.HasPrefix(item, "- ") || item == "-" {
			item = strings.TrimLeft(strings.TrimPrefix(item, "-"), " ")
			if item != "" {
				levels = append(levels, level{len(text) - len(item), n})
			}
		}
		value := strings.TrimSpace(stripComment(item))
		opens = item == "" || strings.HasSuffix(value, ":")
		if k, v, ok := strings.Cut(value, ": "); ok && k != "" {
			v = strings.TrimSpace(v)
			switch {
			case onlyProperties(v):
				// "key: &anchor" or "key: !tag": the block below is
				// the value.
				opens = true
			case strings.HasPrefix(v, "|") || strings.HasPrefix(v, ">"):
				scalar = indent
			case strings.HasPrefix(v, "[") || strings.HasPrefix(v, "{"):
				flow = strings.Count(v, "[") + strings.Count(v, "{") - strings.Count(v, "]") - strings.Count(v, "}")
				if flow < 0 {
					flow = 0
				}
			}
		}
	}
	return nil
}

// onlyProperties reports whether v is nothing but an anchor and tags
// ("&base", "!!map", "&base !!map"), which leave the value to the lines
// below.
func onlyProperties(v string) bool {
	f := strings.Fields(v)
	for _, p := range f {
		if !strings.HasPrefix(p, "&") && !strings.HasPrefix(p, "!") {
			return false
		}
	}
	return len(f) > 0
}

// stripComment drops a " #" comment from a line (quotes are not tracked:
// the result only decides whether the line ends in ":").
func stripComment(s string) string {
	if i := strings.Index(s, " #"); i >= 0 {
		return s[:i]
	}
	return s
}

// levelList names the indentation of open levels, innermost first.
func levelList(levels []level) string {
	var parts []string
	seen := map[int]bool{}
	for i := len(levels) - 1; i >= 0; i-- {
		if in := levels[i].indent; !seen[in] {
			seen[in] = true
			parts = append(parts, fmt.Sprint(in))
		}
	}
	return strings.Join(parts, " or ") + " spaces"
}

func spaces(n int) string {
	if n == 1 {
		return "1 space"
	}
	return fmt.Sprintf("%d spaces", n)
}
