package responses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// object is a JSON object read one level deep: every value stays as the
// client wrote it until its field is read, so a nested value passed on
// (a tool's parameters, a JSON schema, metadata) keeps its bytes.
type object map[string]json.RawMessage

// isNull says a value is absent or JSON null: the Responses API treats
// both as "not given", and SDKs send null for unset optional fields.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// kind returns the JSON type of a value as a client would name it.
func kind(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// readObject reads raw as an object; param names it in the error.
func readObject(raw json.RawMessage, param string) (object, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, invalid(param, "%s must be an object, not %s", param, kind(raw))
	}
	var o object
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, invalid(param, "%s must be an object", param)
	}
	return o, nil
}

// readArray reads raw as an array.
func readArray(raw json.RawMessage, param string) ([]json.RawMessage, error) {
	if len(raw) == 0 || raw[0] != '[' {
		return nil, invalid(param, "%s must be an array, not %s", param, kind(raw))
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, invalid(param, "%s must be an array", param)
	}
	return a, nil
}

// readString reads a string; null or absent is "".
func readString(raw json.RawMessage, param string) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", invalid(param, "%s must be a string, not %s", param, kind(raw))
	}
	return s, nil
}

// readBool reads a boolean; null or absent is nil.
func readBool(raw json.RawMessage, param string) (*bool, error) {
	if isNull(raw) {
		return nil, nil
	}
	switch string(raw) {
	case "true":
		b := true
		return &b, nil
	case "false":
		b := false
		return &b, nil
	}
	return nil, invalid(param, "%s must be a boolean, not %s", param, kind(raw))
}

// readNumber checks that raw is a number and returns it as written, so
// the upstream reads the client's own digits; null or absent is nil.
func readNumber(raw json.RawMessage, param string) (json.RawMessage, error) {
	if isNull(raw) {
		return nil, nil
	}
	var n json.Number
	if kind(raw) != "a number" || json.Unmarshal(raw, &n) != nil {
		return nil, invalid(param, "%s must be a number, not %s", param, kind(raw))
	}
	return raw, nil
}

// readCount reads a positive integer; null or absent is 0.
func readCount(raw json.RawMessage, param string) (int, error) {
	if isNull(raw) {
		return 0, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n < 1 || n > 1<<31-1 {
		return 0, invalid(param, "%s must be a positive integer", param)
	}
	return int(n), nil
}

// compact returns raw without insignificant white space. Strings keep
// their bytes: < > & are not escaped.
func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// marshal encodes v as JSON without escaping < > & (the HTML escaping of
// json.Marshal would change the client's text on its way upstream).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding the chat request: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
