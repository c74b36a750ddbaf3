package responses

import (
	"encoding/json"
)

// readTools reads tools, tool_choice, parallel_tool_calls and text.format.
// The tools that arrive in the input (additional_tools and
// tool_search_output items) are read with it, before them, so that the
// calls in the input map to the names their tools are offered under.
func (r *Request) readTools(top object) error {
	if raw := top["tools"]; !isNull(raw) {
		if err := r.readToolList(raw, "tools"); err != nil {
			return err
		}
	}
	if err := r.readInputTools(top["input"]); err != nil {
		return err
	}
	var err error
	if r.chat.ToolChoice, err = r.readToolChoice(top["tool_choice"]); err != nil {
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

// readToolChoice maps "none", "auto", "required" as they are, and
// {type: "function" or "custom", name, namespace} to chat's
// {type: "function", function: {name}} under the tool's flat name. Other
// choices (allowed_tools, hosted tools) are left out: the model chooses.
func (r *Request) readToolChoice(raw json.RawMessage) (json.RawMessage, error) {
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
	if typ != kindFunction && typ != kindCustom {
		if typ == "" {
			return nil, invalid(param+".type", "tool_choice.type is required")
		}
		r.leaveOut("tool_choice " + typ)
		return nil, nil
	}
	name, err := readString(o["name"], param+".name")
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, invalid(param+".name", "tool_choice.name is required")
	}
	namespace, err := readString(o["namespace"], param+".namespace")
	if err != nil {
		return nil, err
	}
	name = r.flatOf(typ, namespace, name)
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
