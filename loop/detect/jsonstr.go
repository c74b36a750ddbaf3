package detect

// Where a marker block's body is JSON, its closing marker and its own
// opening marker are data inside a JSON string: a model that searches for
// "what is <tool_call>" or passes the value "a</tool_call>b" writes them
// there. Closing at such a marker cut the call in two (a PARSE_ERROR, and
// the rest of the block shown to the client); restarting at it showed the
// whole block. A jsonStrings follows the body's JSON strings so that the
// closer (block.scan) looks for markers only outside them.
//
// Only double-quoted strings are followed, as the json balancer does:
// single-quoted ones, which lenient repair accepts, are too easily an
// apostrophe in a bare word, which would swallow the close.

// How a syntax's body holds JSON (syntax.jsonBody).
const (
	// jsonNone: no JSON is followed (XML and Qwen3-Coder parameter values
	// are raw text, where a lone quote is common).
	jsonNone uint8 = iota
	// jsonLead: the body is JSON when its first non-blank byte is '{' or
	// '[' (hermes, and the wrappers around the same JSON). A body that
	// starts otherwise (the Qwen3-Coder or GLM body in <tool_call>) is
	// never followed.
	jsonLead
	// jsonAfterHead: the body is a head ending at its first '>' ("NAME>"
	// or `name="NAME">`), then JSON when the next non-blank byte is '{'.
	jsonAfterHead
	// jsonArgs: every '{' outside a string opens a JSON value (the
	// arguments between the markup of DeepSeek's and Kimi's calls, and
	// after a [TOOL_REQUEST] name).
	jsonArgs
)

// Phases of a jsonStrings.
const (
	jpLead  uint8 = iota // before the body's first non-blank byte (jsonLead)
	jpHead               // jsonAfterHead: in the head, before its '>'
	jpAfter              // jsonAfterHead: after the '>', before a non-blank byte
	jpOff                // the body is not JSON: nothing is followed
	jpOut                // between JSON values: a '{' (or '[' once JSON was seen) opens one
	jpIn                 // inside a JSON value, outside its strings
	jpStr                // inside a string
	jpEsc                // inside a string, after a backslash
)

// jsonStrings follows the JSON of a block's body, a byte at a time.
type jsonStrings struct {
	phase uint8
	depth int
}

// start sets the phase for a body of the given kind, before its first byte.
func (j *jsonStrings) start(kind uint8) {
	switch kind {
	case jsonLead:
		j.phase = jpLead
	case jsonAfterHead:
		j.phase = jpHead
	case jsonArgs:
		j.phase = jpOut
	default:
		j.phase = jpOff
	}
	j.depth = 0
}

// active reports whether bytes need stepping: the body may still hold JSON.
func (j *jsonStrings) active() bool { return j.phase != jpOff }

// inString reports whether the last byte stepped was inside a string (its
// opening quote included, its closing quote not).
func (j *jsonStrings) inString() bool { return j.phase == jpStr || j.phase == jpEsc }

// step reads the next byte of the body.
func (j *jsonStrings) step(c byte) {
	switch j.phase {
	case jpLead:
		switch {
		case c == '{' || c == '[':
			j.phase, j.depth = jpIn, 1
		case !isBlank(c):
			j.phase = jpOff
		}
	case jpHead:
		if c == '>' {
			j.phase = jpAfter
		}
	case jpAfter:
		switch {
		case c == '{':
			j.phase, j.depth = jpIn, 1
		case !isBlank(c):
			j.phase = jpOff
		}
	case jpOut:
		if c == '{' {
			j.phase, j.depth = jpIn, 1
		}
	case jpIn:
		switch c {
		case '"':
			j.phase = jpStr
		case '{', '[':
			j.depth++
		case '}', ']':
			if j.depth--; j.depth == 0 {
				j.phase = jpOut
			}
		}
	case jpStr:
		switch c {
		case '\\':
			j.phase = jpEsc
		case '"':
			j.phase = jpIn
		}
	case jpEsc:
		j.phase = jpStr
	}
}
