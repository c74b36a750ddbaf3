package detect

import (
	"bytes"
	"encoding/json"
	"strings"
)

// synJSON is the json format (docs/tool-calls.md), detected only when it is the
// taught format. A block is a fenced block whose body is JSON:
//
//	```json
//	{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
//	```
//
// or a bare object in the prose, held from its '{' to the brace that
// balances it:
//
//	{"name": "get_weather", "arguments": {"city": "Paris"}}
//
// Bodies are repaired leniently (see lenientJSON). A body that is not a call
// (no "name", or a "name" without "arguments" that names no known tool) is
// text, released as written.
var synJSON = syntax{
	format: JSON,
	start:  jsonStart,
	parse:  parseJSON,
	sniff:  sniffJSON,
}

// callKeys are the keys a call object may start with. An object whose first
// key is another one is data, released as text at once instead of being
// held to its closing brace; so is "{" followed by anything but a key.
var callKeys = map[string]bool{
	"name": true, "tool_calls": true, "function": true, "type": true,
	"id": true, "arguments": true, "parameters": true,
}

// jsonStart wants '{' (or '[' then '{') and a first key from callKeys,
// quoted or not.
func jsonStart(s string) (res, at int) {
	i := 0
	if s[0] == '[' {
		if i = skipBlanks(s, 1); i == len(s) {
			return startMore, 0
		}
		if s[i] != '{' {
			return startNo, i
		}
	}
	if i = skipBlanks(s, i+1); i == len(s) {
		return startMore, 0
	}
	var key string
	switch c := s[i]; {
	case c == '"' || c == '\'':
		end := strings.IndexByte(s[i+1:min(len(s), i+1+maxKey)], c)
		if end < 0 {
			if len(s) >= i+1+maxKey {
				return startNo, i + 1 + maxKey
			}
			return startMore, 0
		}
		key, at = s[i+1:i+1+end], i+1+end
	case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		j := i
		for j < len(s) && j < i+maxKey && (s[j] == '_' || 'a' <= s[j] && s[j] <= 'z' || 'A' <= s[j] && s[j] <= 'Z' || '0' <= s[j] && s[j] <= '9') {
			j++
		}
		if j == len(s) {
			return startMore, 0
		}
		key, at = s[i:j], j
	default:
		return startNo, i
	}
	if callKeys[key] {
		return startOK, 0
	}
	return startNo, at
}

// skipBlanks skips ASCII white space from s[i].
func skipBlanks(s string, i int) int {
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return i
}

func parseJSON(body string) parsed {
	calls, shape, name, err := readCalls(body)
	switch {
	case err != nil:
		return parsed{name: name, err: err, notCall: !looksLikeJSONCall(body, name)}
	case shape == shapeNone:
		return parsed{}
	}
	return parsed{calls: calls, weak: shape == shapeNamed}
}

func sniffJSON(body string) parsed {
	name := sniffJSONName(body)
	return parsed{name: name, notCall: !looksLikeJSONCall(body, name)}
}

// looksLikeJSONCall tells a broken call from broken prose in braces.
func looksLikeJSONCall(body, name string) bool {
	return strings.Contains(body, `"tool_calls"`) ||
		name != "" && (strings.Contains(body, `"arguments"`) || strings.Contains(body, `"parameters"`))
}

// The shapes readCalls tells apart.
const (
	shapeNone  = iota // valid JSON, not a call
	shapeNamed        // {"name": …} and nothing saying it is a call
	shapeCall         // a call: arguments given, or a tool_calls/function wrapper
)

// readCalls reads the calls in a JSON text (hermes bodies and json blocks):
//
//	{"name": "get_weather", "arguments": {"city": "Paris"}}
//	{"name": "get_weather", "parameters": {"city": "Paris"}}
//	{"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}
//	{"type": "function", "function": {"name": "get_weather", "arguments": "{…}"}}
//	{"tool_calls": [ …calls… ]}
//	[ …calls… ]
//
// On a parse error it returns the tool name it could sniff, if any.
func readCalls(text string) (calls []Call, shape int, name string, err error) {
	js, err := lenientJSON(text)
	if err != nil {
		return nil, shapeCall, sniffJSONName(text), malformed("%v", err)
	}
	js = bytes.TrimSpace(js)
	var list []json.RawMessage
	switch js[0] {
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(js, &obj); err != nil {
			return nil, shapeCall, sniffJSONName(text), malformed("%v", err)
		}
		tc, ok := obj["tool_calls"]
		if !ok {
			c, shape, err := callObject(obj)
			if shape == shapeNone {
				return nil, shapeNone, "", nil
			}
			return []Call{c}, shape, c.Name, err
		}
		if err := json.Unmarshal(tc, &list); err != nil {
			return nil, shapeCall, sniffJSONName(text), malformed(`"tool_calls" must be a list of calls`)
		}
	case '[':
		if err := json.Unmarshal(js, &list); err != nil || len(list) == 0 {
			return nil, shapeNone, "", nil
		}
	default:
		return nil, shapeNone, "", nil
	}
	for i, item := range list {
		var obj map[string]json.RawMessage
		if json.Unmarshal(item, &obj) != nil {
			obj = nil
		}
		c, shape, err := callObject(obj)
		if shape == shapeNone {
			if i == 0 && js[0] == '[' {
				return nil, shapeNone, "", nil // a list of something else
			}
			return nil, shapeCall, name, malformed("item %d of the list is not a call", i+1)
		}
		if name == "" {
			name = c.Name
		}
		if err != nil {
			return nil, shapeCall, name, err
		}
		calls = append(calls, c)
	}
	if len(calls) == 0 {
		return nil, shapeCall, "", malformed(`"tool_calls" is empty`)
	}
	return calls, shapeCall, name, nil
}

// callObject reads one call object.
func callObject(obj map[string]json.RawMessage) (Call, int, error) {
	wrapped := false
	if fn, ok := obj["function"]; ok {
		var inner map[string]json.RawMessage
		if json.Unmarshal(fn, &inner) == nil && inner != nil {
			obj, wrapped = inner, true
		}
	}
	args, hasArgs := obj["arguments"]
	if !hasArgs {
		args, hasArgs = obj["parameters"]
	}
	shape := shapeNamed
	if hasArgs || wrapped {
		shape = shapeCall
	}
	rawName, ok := obj["name"]
	if !ok {
		if shape == shapeCall {
			return Call{}, shape, malformed(`the call has no "name"`)
		}
		return Call{}, shapeNone, nil
	}
	var name string
	if json.Unmarshal(rawName, &name) != nil || strings.TrimSpace(name) == "" {
		if shape == shapeCall {
			return Call{}, shape, malformed(`"name" must be a non-empty string`)
		}
		return Call{}, shapeNone, nil
	}
	a, err := argsObject(args)
	if err != nil {
		return Call{Name: name}, shapeCall, err
	}
	return Call{Name: name, Arguments: a}, shape, nil
}

// sniffJSONName returns the first "name": "…" value in a JSON text that may
// be broken or unfinished, or "".
func sniffJSONName(s string) string {
	i := strings.Index(s, `"name"`)
	if i < 0 {
		return ""
	}
	s = strings.TrimLeft(s[i+len(`"name"`):], " \t\r\n")
	if !strings.HasPrefix(s, ":") {
		return ""
	}
	s = strings.TrimLeft(s[1:], " \t\r\n")
	if !strings.HasPrefix(s, `"`) {
		return ""
	}
	for j := 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			var name string
			if json.Unmarshal([]byte(s[:j+1]), &name) != nil {
				return ""
			}
			return name
		}
	}
	return ""
}
