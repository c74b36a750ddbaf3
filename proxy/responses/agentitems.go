package responses

import (
	"encoding/json"
	"strings"
)

// readCall maps a call item the client sends back to a chat tool call
// under its call_id, which the matching output names: a function_call
// (namespace and bare name → the flat name), a custom_tool_call (its
// input → arguments {"input": …}), a tool_search_call (its arguments
// object → the arguments string).
func (r *Request) readCall(it object, param, typ string) (chatToolCall, error) {
	id, err := readString(it["call_id"], param+".call_id")
	if err != nil {
		return chatToolCall{}, err
	}
	if id == "" {
		return chatToolCall{}, invalid(param+".call_id", "%s.call_id is required", param)
	}
	namespace, err := readString(it["namespace"], param+".namespace")
	if err != nil {
		return chatToolCall{}, err
	}
	name, args := kindToolSearch, ""
	if typ != "tool_search_call" {
		if name, err = readString(it["name"], param+".name"); err != nil {
			return chatToolCall{}, err
		}
		if name == "" {
			return chatToolCall{}, invalid(param+".name", "%s.name is required", param)
		}
	}
	switch typ {
	case "function_call":
		name = r.flatOf(kindFunction, namespace, name)
		if args, err = readString(it["arguments"], param+".arguments"); err != nil {
			return chatToolCall{}, err
		}
	case "custom_tool_call":
		name = r.flatOf(kindCustom, namespace, name)
		input, err := readString(it["input"], param+".input")
		if err != nil {
			return chatToolCall{}, err
		}
		b, err := marshal(struct {
			Input string `json:"input"`
		}{input})
		if err != nil {
			return chatToolCall{}, err
		}
		args = string(b)
	case "tool_search_call":
		name = r.flatOf(kindToolSearch, namespace, name)
		if a := it["arguments"]; !isNull(a) {
			if a[0] == '"' {
				if args, err = readString(a, param+".arguments"); err != nil {
					return chatToolCall{}, err
				}
			} else {
				args = string(compact(a))
			}
		}
	}
	if args == "" {
		args = "{}" // chat templates parse arguments as JSON
	}
	return chatToolCall{ID: id, Type: "function", Function: chatCallFunc{Name: name, Arguments: args}}, nil
}

// readOutput maps a call's output item to a tool message: a
// function_call_output's or custom_tool_call_output's output (a string,
// or content parts whose texts are joined), or what a
// tool_search_output loaded (the names the model may call from now on).
// A tool_search_output the server ran (no call_id) answers no call of
// the conversation: nil.
func (r *Request) readOutput(it object, param, typ string) (*chatMessage, error) {
	id, err := readString(it["call_id"], param+".call_id")
	if err != nil {
		return nil, err
	}
	if typ == "tool_search_output" {
		if id == "" {
			return nil, nil
		}
		return &chatMessage{Role: "tool", Content: r.searchResult(it["tools"]), ToolCallID: id}, nil
	}
	if id == "" {
		return nil, invalid(param+".call_id", "%s.call_id is required", param)
	}
	out := it["output"]
	var content string
	switch {
	case isNull(out):
	case out[0] == '[':
		parts, err := r.readParts(out, param+".output", partsOutput)
		if err != nil {
			return nil, err
		}
		if len(parts) > 0 {
			content = partsContent(parts, false).(string)
		}
	default:
		if content, err = readString(out, param+".output"); err != nil {
			return nil, err
		}
	}
	return &chatMessage{Role: "tool", Content: content, ToolCallID: id}, nil
}

// searchResult is what the model reads of a tool search's result: the
// names of the tools it loaded, as they are offered (readInputTools
// offered them already).
func (r *Request) searchResult(raw json.RawMessage) string {
	var tools []struct {
		Type  string `json:"type"`
		Name  string `json:"name"`
		Tools []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(raw, &tools) // readInputTools checked it
	var names []string
	for _, t := range tools {
		if t.Type == "namespace" {
			for _, in := range t.Tools {
				names = append(names, r.flatOf(in.Type, t.Name, in.Name))
			}
			continue
		}
		if t.Name != "" {
			names = append(names, r.flatOf(t.Type, "", t.Name))
		}
	}
	if len(names) == 0 {
		return "No tools found."
	}
	return "Tools loaded, callable from now on: " + strings.Join(names, ", ")
}
