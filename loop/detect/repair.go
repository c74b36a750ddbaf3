package detect

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kaptinlin/jsonrepair"
)

// maxRepairBytes bounds the JSON handed to jsonrepair, whose run time grows
// faster than linearly on badly broken input. Larger bodies must be valid
// JSON.
const maxRepairBytes = 16 << 10

// lenientJSON returns s as valid JSON: as is when it is valid, else
// repaired (trailing commas, single quotes, unquoted keys, missing closing
// braces after a complete value, Python constants; see
// github.com/kaptinlin/jsonrepair).
//
// Repair fixes form, never content: text that ends inside a value or
// leaves a key without one (see needsGuess) is refused, because completing
// it would run a call the model never wrote. A fault probe had
// {"name":"work","arguments":{"x":1,"s":"delete everything except</tool_call>
// reach its webhook as {"x":1,"s":"delete everything except"}; native mode
// gives truncated arguments INVALID_PARAMETER, and text mode must not be
// more forgiving.
func lenientJSON(s string) (out []byte, err error) {
	s = strings.TrimSpace(s)
	if json.Valid([]byte(s)) {
		return []byte(s), nil
	}
	if why := needsGuess(s); why != "" {
		return nil, fmt.Errorf("incomplete JSON: %s (write the whole call again)", why)
	}
	if len(s) > maxRepairBytes {
		return nil, fmt.Errorf("invalid JSON (%d bytes, too large to repair)", len(s))
	}
	defer func() {
		// A repairer bug must cost one PARSE_ERROR, not the stream.
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("invalid JSON (repair failed: %v)", r)
		}
	}()
	fixed, rerr := jsonrepair.Repair(s)
	if rerr != nil {
		return nil, fmt.Errorf("invalid JSON: %w", rerr)
	}
	if !json.Valid([]byte(fixed)) {
		return nil, errors.New("invalid JSON")
	}
	return []byte(fixed), nil
}

// What the innermost open container of needsGuess's scan waits for.
const (
	wantKey   = iota // after '{' or a ',' in an object
	wantColon        // after a key
	wantValue        // after ':', '[' or a ',' in an array
	haveValue        // after a value
)

// needsGuess reports why repairing the JSON text s (invalid, trimmed) would
// have to invent a value, or "" when it would not. A key without its value
// anywhere is one case (the repairer makes it null). The others are text
// that ends inside a value; the end is fine only when everything it opened
// was complete: every string closed, and only objects left open, the
// innermost right after a value that cannot grow (a closed string, object
// or array, true, false, null, or Python's True, False, None). That one
// case is the missing closing brace models write, and repairing it invents
// nothing. Anything else left open at the end would be completed by a
// guess:
//
//	{"s":"delete everything except   a string without its closing quote
//	{"x":12                          a number (it may have been 123)
//	{"a":[1,2                        an array (more items may have followed)
//	{"s":       {"s"       {"x":1,   a key without its value
//
// The scan is as lenient as the repairer about form (single quotes,
// unquoted keys and values, comments, missing commas) and only looks at
// where the text ends, so form it misreads errs towards refusing.
func needsGuess(s string) string {
	var g openScan
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isBlank(c):
		case c == '"' || c == '\'':
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\\' {
					j++
				}
			}
			if j >= len(s) {
				return "a string has no closing quote"
			}
			g.value(false)
			i = j
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			if nl := strings.IndexByte(s[i:], '\n'); nl >= 0 {
				i += nl
			} else {
				i = len(s)
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return "a comment is not closed"
			}
			i += 2 + end + 1
		case c == '{' || c == '[':
			g.open(c)
		case c == '}' || c == ']':
			if why := g.close(); why != "" {
				return why
			}
		case c == ':':
			g.colon()
		case c == ',':
			if why := g.comma(); why != "" {
				return why
			}
		default: // a bare word: a number, a constant, an unquoted key or value
			j := i
			for j < len(s) && !isBlank(s[j]) && !strings.ContainsRune(`{}[]:,"'`, rune(s[j])) {
				j++
			}
			switch s[i:j] {
			case "true", "false", "null", "True", "False", "None":
				g.value(false)
			default:
				g.value(true)
			}
			i = j - 1
		}
	}
	return g.end()
}

// openScan is where [needsGuess] stands: the containers still open and,
// for each, what it waits for.
type openScan struct {
	stack []byte // '{' or '[' per open container
	phase []int8 // per open container: wantKey…haveValue
	grown bool   // the last value may still grow (a number, a word)
}

// value records a complete token in the innermost container.
func (g *openScan) value(canGrow bool) {
	g.grown = canGrow
	if n := len(g.phase); n > 0 {
		switch {
		case g.stack[n-1] == '{' && g.phase[n-1] == wantKey:
			g.phase[n-1] = wantColon
		case g.stack[n-1] == '{' && g.phase[n-1] == haveValue:
			g.phase[n-1] = wantColon // a missing comma: the next key
		case g.stack[n-1] == '[' || g.phase[n-1] == wantValue:
			g.phase[n-1] = haveValue
		}
	}
}

// open opens the container c ('{' or '[').
func (g *openScan) open(c byte) {
	g.value(false) // the container is the value being written
	g.stack, g.phase = append(g.stack, c), append(g.phase, wantValue)
	if c == '{' {
		g.phase[len(g.phase)-1] = wantKey
	}
}

// close closes the innermost container. A stray or mismatched closer is
// form: it closes what it can, and the repairer sorts out the rest. A key
// closed without its value would become null: close says so.
func (g *openScan) close() string {
	if n := len(g.stack); n > 0 {
		if g.keyOpen() {
			return "a key has no value"
		}
		g.stack, g.phase = g.stack[:n-1], g.phase[:n-1]
		if n := len(g.phase); n > 0 {
			g.phase[n-1] = haveValue
		}
	}
	g.grown = false
	return ""
}

// colon ends a key.
func (g *openScan) colon() {
	if n := len(g.phase); n > 0 && g.stack[n-1] == '{' {
		g.phase[n-1] = wantValue
	}
}

// comma ends a member or an item; after a key without its value it says
// so.
func (g *openScan) comma() string {
	if n := len(g.phase); n > 0 {
		if g.keyOpen() {
			return "a key has no value"
		}
		g.phase[n-1] = wantValue
		if g.stack[n-1] == '{' {
			g.phase[n-1] = wantKey
		}
	}
	return ""
}

// keyOpen says the innermost container is an object whose last key has
// no value yet.
func (g *openScan) keyOpen() bool {
	n := len(g.stack)
	return g.stack[n-1] == '{' && (g.phase[n-1] == wantColon || g.phase[n-1] == wantValue)
}

// end says why the text, ended here, would need a guess, or "".
func (g *openScan) end() string {
	n := len(g.stack)
	if n == 0 {
		return ""
	}
	for _, c := range g.stack {
		if c == '[' {
			return "a list is not closed"
		}
	}
	switch g.phase[n-1] {
	case wantKey:
		return "an object ends after '{' or ','"
	case wantColon, wantValue:
		return "a key has no value"
	}
	if g.grown {
		return "the last value may be unfinished"
	}
	return ""
}
