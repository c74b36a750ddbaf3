package responses

import (
	"encoding/json"
	"fmt"
)

// readTools reads tools, tool_choice, parallel_tool_calls and text.format.
func (r *Request) readTools(top object) error {
	if raw := top["tools"]; !isNull(raw) {
		list, err := readArray(raw, "tools")
		if err != nil {
			return err
		}
		for i, t := range list {
			if r.offerHosted(t) {
				continue
			}
			ct, err := readTool(t, fmt.Sprintf("tools[%d]", i))
			if err != nil {
				return err
			}
			r.chat.Tools = append(r.chat.Tools, ct)
			r.ClientTools = append(r.ClientTools, ct.Function.Name)
		}
	}
	var err error
	if r.chat.ToolChoice, err = readToolChoice(top["tool_choice"]); err != nil {
		return err
	}
	if r.chat.ParallelToolCalls, err = readBool(top["parallel_tool_calls"], "parallel_tool_calls"); err != nil {
		return err
	}
	if raw := top["text"]; !isNull(raw) {
		text, err := readObject(raw, "text")
		if err != nil {
			return err
		}
		if r.chat.ResponseFormat, err = readFormat(text["format"]); err != nil {
			return err
		}
	}
	return nil
}

// readTool turns a Responses function tool, which is flat
// ({type, name, description, parameters, strict}), into a chat tool, which
// nests the same fields under "function". Other tool types are hosted
// tools this proxy does not run.
func readTool(raw json.RawMessage, param string) (chatTool, error) {
	o, err := readObject(raw, param)
	if err != nil {
		return chatTool{}, err
	}
	typ, err := readString(o["type"], param+".type")
	if err != nil {
		return chatTool{}, err
	}
	if typ != "function" {
		if typ == "" {
			return chatTool{}, invalid(param+".type", "%s.type is required; only tools of type \"function\" are supported", param)
		}
		return chatTool{}, unsupported(param+".type", CodeUnsupportedToolType,
			"tools of type %q are not supported by this server; only \"function\" tools are (server tools are configured on the proxy)", typ)
	}
	f := chatFunction{}
	if f.Name, err = readString(o["name"], param+".name"); err != nil {
		return chatTool{}, err
	}
	if f.Name == "" {
		return chatTool{}, invalid(param+".name", "%s.name is required", param)
	}
	if f.Description, err = readString(o["description"], param+".description"); err != nil {
		return chatTool{}, err
	}
	if p := o["parameters"]; !isNull(p) {
		if _, err := readObject(p, param+".parameters"); err != nil {
			return chatTool{}, err
		}
		f.Parameters = compact(p)
	}
	if f.Strict, err = readBool(o["strict"], param+".strict"); err != nil {
		return chatTool{}, err
	}
	return chatTool{Type: "function", Function: f}, nil
}

// readToolChoice maps "none", "auto", "required" as they are, and
// {type: "function", name} to chat's {type: "function", function: {name}}.
func readToolChoice(raw json.RawMessage) (json.RawMessage, error) {
	const param = "tool_choice"
	if isNull(raw) {
		return nil, nil
	}
	if raw[0] == '"' {
		s, err := readString(raw, param)
		if err != nil {
			return nil, err
		}
		switch s {
		case "none", "auto", "required":
			return marshal(s)
		}
		return nil, invalid(param, "tool_choice must be \"none\", \"auto\", \"required\" or {\"type\": \"function\", \"name\": …}, not %q", s)
	}
	o, err := readObject(raw, param)
	if err != nil {
		return nil, err
	}
	typ, err := readString(o["type"], param+".type")
	if err != nil {
		return nil, err
	}
	if typ != "function" {
		return nil, unsupported(param+".type", CodeUnsupportedInput,
			"tool_choice of type %q is not supported by this server; use \"none\", \"auto\", \"required\" or {\"type\": \"function\", \"name\": …}", typ)
	}
	name, err := readString(o["name"], param+".name")
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, invalid(param+".name", "tool_choice.name is required")
	}
	type fn struct {
		Name string `json:"name"`
	}
	return marshal(struct {
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}{"function", fn{name}})
}

// readFormat maps text.format to chat's response_format: the flat
// json_schema form ({type, name, schema, strict, description}) nests under
// "json_schema"; json_object stays; text, the default, sends nothing.
func readFormat(raw json.RawMessage) (json.RawMessage, error) {
	const param = "text.format"
	if isNull(raw) {
		return nil, nil
	}
	o, err := readObject(raw, param)
	if err != nil {
		return nil, err
	}
	typ, err := readString(o["type"], param+".type")
	if err != nil {
		return nil, err
	}
	switch typ {
	case "text":
		return nil, nil
	case "json_object":
		return json.RawMessage(`{"type":"json_object"}`), nil
	case "json_schema":
	default:
		return nil, invalid(param+".type", "text.format.type must be \"text\", \"json_object\" or \"json_schema\", not %q", typ)
	}
	type schema struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Schema      json.RawMessage `json:"schema"`
		Strict      *bool           `json:"strict,omitempty"`
	}
	s := schema{}
	if s.Name, err = readString(o["name"], param+".name"); err != nil {
		return nil, err
	}
	if s.Name == "" {
		return nil, invalid(param+".name", "text.format.name is required for a json_schema format")
	}
	if s.Description, err = readString(o["description"], param+".description"); err != nil {
		return nil, err
	}
	if isNull(o["schema"]) {
		return nil, invalid(param+".schema", "text.format.schema is required for a json_schema format")
	}
	if _, err := readObject(o["schema"], param+".schema"); err != nil {
		return nil, err
	}
	s.Schema = compact(o["schema"])
	if s.Strict, err = readBool(o["strict"], param+".strict"); err != nil {
		return nil, err
	}
	return marshal(struct {
		Type       string `json:"type"`
		JSONSchema schema `json:"json_schema"`
	}{"json_schema", s})
}
