package detect

import "strings"

// The glm dialect (docs/tool-calls.md), as GLM-4.5 and GLM-4.6 write
// it inside the <tool_call> tag they share with hermes (hermes.go): the
// tool name on the first line, then key/value pairs,
//
//	<tool_call>get_weather
//	<arg_key>city</arg_key>
//	<arg_value>Paris</arg_value>
//	</tool_call>
//
// A value is raw text less one leading and one trailing newline, like the
// other raw formats: GLM writes strings bare and other types as JSON, and
// vLLM's and SGLang's parsers tell them apart by the tool's schema, which
// is toolhost's job here (the value stays a JSON string until then).
// Quirks of real output: a literal "\n" (backslash, n) for the newline
// after the name, which vLLM and SGLang accept; no newline at all before
// <arg_key> (GLM-4.7); a missing </arg_value>, which ends at the next
// <arg_key> or the end of the block; and a JSON object after the name
// line instead of pairs, taken as the arguments.

const (
	glmKey      = "<arg_key>"
	glmKeyEnd   = "</arg_key>"
	glmValue    = "<arg_value>"
	glmValueEnd = "</arg_value>"
)

// glmStart wants a tool name then a newline, <arg_key> or </tool_call>,
// so that "<tool_call> tags are useful" stays prose.
func glmStart(s string) (res, at int) {
	j, r := nameEnd(s)
	switch {
	case r != startOK:
		return r, j
	case j == 0:
		return startNo, 0
	}
	j = skipSpaces(s, j)
	switch {
	case j == len(s):
		return startMore, 0
	case s[j] == '\n' || s[j] == '\r':
		return startOK, 0
	case s[j] == '\\':
		return tagAt(s, j, `\n`)
	}
	return tagAt(s, j, glmKey, "</tool_call>")
}

// parseGLM reads a GLM body, s trimmed and starting with a name byte.
func parseGLM(s string) parsed {
	pr := parsed{format: GLM}
	name, rest := glmName(s)
	pr.name = name
	if name == "" {
		pr.err = malformed("expected a tool name, got %s", excerpt(s))
		return pr
	}
	rest = glmBlank(rest)
	if strings.HasPrefix(rest, "{") {
		a, err := jsonArguments(rest)
		if err != nil {
			pr.err = err
			return pr
		}
		pr.calls = []Call{{Name: name, Arguments: a}}
		return pr
	}
	var args textArgs
	for ; rest != ""; rest = glmBlank(rest) {
		r, ok := strings.CutPrefix(rest, glmKey)
		if !ok {
			pr.err = malformed("in the call of %s: expected <arg_key>, got %s", name, excerpt(rest))
			return pr
		}
		key, r, ok := strings.Cut(r, glmKeyEnd)
		if !ok {
			pr.err = malformed("in the call of %s: <arg_key> has no </arg_key>", name)
			return pr
		}
		key = strings.TrimSpace(key)
		if r, ok = strings.CutPrefix(glmBlank(r), glmValue); !ok {
			pr.err = malformed("in the call of %s: <arg_key>%s</arg_key> is not followed by <arg_value>", name, key)
			return pr
		}
		value := r
		e, k := strings.Index(r, glmValueEnd), strings.Index(r, glmKey)
		switch {
		case e >= 0 && (k < 0 || e < k):
			value, rest = r[:e], r[e+len(glmValueEnd):]
		case k >= 0:
			value, rest = r[:k], r[k:]
		default:
			rest = ""
		}
		if err := args.add(key, trimNewlines(value)); err != nil {
			pr.err = err
			return pr
		}
	}
	pr.calls = []Call{{Name: name, Arguments: args.json()}}
	return pr
}

// glmName splits the name line off a GLM body.
func glmName(s string) (name, rest string) {
	end := len(s)
	for _, sep := range []string{"\n", `\n`, "<"} {
		if i := strings.Index(s, sep); i >= 0 && i < end {
			end = i
		}
	}
	return strings.TrimSpace(s[:end]), s[end:]
}

// glmBlank skips white space and literal "\n" between the parts of a body.
func glmBlank(s string) string {
	for {
		s = trimBlankLeft(s)
		r, ok := strings.CutPrefix(s, `\n`)
		if !ok {
			return s
		}
		s = r
	}
}
