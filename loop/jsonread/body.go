package jsonread

import (
	"encoding/json"
	"errors"
	"fmt"
)

// MaxDepth is the deepest nesting a body may have: fastjson's limit, which
// the turn runner's parser enforces on every round's request, so a body
// read here is one it can parse.
const MaxDepth = 300

// BodyError is a request body refused as a whole: not JSON, not an object,
// nested too deep, a top-level key written twice, or more values than the
// request's budget.
type BodyError struct {
	// Key is the top-level key the body repeats; empty otherwise.
	Key string
	// Limit is the value budget the body went past; 0 otherwise.
	Limit int
	msg   string
}

func (e *BodyError) Error() string { return e.msg }

// Body reads a request body: checks that it is one valid JSON object,
// nested at most MaxDepth deep, holding at most maxValues values (0: no
// budget), with no top-level key written twice, and splits it into its
// top-level members, kept as written.
//
// A repeated key is refused because readers pick different copies:
// encoding/json and Python take the last, others the first. A body with
// "model" twice would be checked against a key's scope for one model and
// served by another.
//
// The budget is on values, not bytes: what a body costs once read grows
// with the values it holds (each message, part or item becomes Go values
// of its own), and a body of one-letter messages holds one value for
// every ten bytes. Counting is one pass over the bytes, with no
// allocation, before anything is built from them.
func Body(raw []byte, maxValues int) (Object, error) {
	if !json.Valid(raw) {
		var syn *json.SyntaxError
		err := json.Unmarshal(raw, new(json.RawMessage))
		if errors.As(err, &syn) {
			return nil, &BodyError{msg: fmt.Sprintf("request body is not valid JSON: %s (at byte %d)", syn.Error(), syn.Offset)}
		}
		return nil, &BodyError{msg: "request body is not valid JSON: unexpected end of JSON input"}
	}
	if i := skipSpace(raw, 0); raw[i] != '{' {
		return nil, &BodyError{msg: "request body must be a JSON object"}
	}
	if err := count(raw, maxValues); err != nil {
		return nil, err
	}
	o, dup, twice := split(raw)
	if twice {
		return nil, &BodyError{Key: dup, msg: fmt.Sprintf("the key %q appears more than once in the request body; send each key once", dup)}
	}
	return o, nil
}

// count walks valid JSON once, outside strings: every value but the
// outermost follows an opening bracket or a comma, so the values are one,
// plus the commas, plus the containers that are not empty.
func count(raw []byte, maxValues int) error {
	values, depth := 1, 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			i = stringEnd(raw, i) - 1
		case ',':
			values++
		case '{', '[':
			if depth++; depth > MaxDepth {
				return &BodyError{msg: fmt.Sprintf("request body is nested deeper than %d levels", MaxDepth)}
			}
			if j := skipSpace(raw, i+1); raw[j] != '}' && raw[j] != ']' {
				values++
			}
		case '}', ']':
			depth--
		}
		if maxValues > 0 && values > maxValues {
			return &BodyError{Limit: maxValues, msg: fmt.Sprintf("request body holds more than %d JSON values (messages, items, content parts, their fields); "+
				"send a shorter conversation, or raise max_request_bytes, which allows one value per %d bytes", maxValues, BytesPerValue)}
		}
	}
	return nil
}

// BytesPerValue is how many bytes of max_request_bytes buy one value of
// a body's budget (see [Budget]).
const BytesPerValue = 128

// MinValues is the least budget, whatever max_request_bytes is: a small
// limit still lets a body list its tools' schemas.
const MinValues = 16 << 10

// Budget is the values a body may hold under a max_request_bytes of
// maxBytes: one per BytesPerValue bytes, at least MinValues. A real
// conversation spends far fewer (its text is long strings); a body of
// one-letter messages, whose every value costs the reading routes some
// hundreds of bytes, is refused before it is built.
func Budget(maxBytes int64) int {
	return max(int(maxBytes/BytesPerValue), MinValues)
}
