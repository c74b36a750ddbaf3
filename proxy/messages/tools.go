package messages

import (
	"encoding/json"
	"fmt"
)

// readTools reads tools and tool_choice.
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
			ct, err := readTool(t, fmt.Sprintf("tools.%d", i))
			if err != nil {
				return err
			}
			r.chat.Tools = append(r.chat.Tools, ct)
			r.ClientTools = append(r.ClientTools, ct.Function.Name)
		}
	}
	return r.readToolChoice(top["tool_choice"])
}

// readTool maps a client tool ({name, description, input_schema}, type
// "custom" or none) to a chat function tool. Anthropic's server tools
// (web_search_…, bash_…, text_editor_…, computer_…, code_execution_…)
// run on Anthropic's side and are refused: server tools here are the
// proxy's own.
func readTool(raw json.RawMessage, p string) (chatTool, error) {
	o, err := readObject(raw, p)
	if err != nil {
		return chatTool{}, err
	}
	typ, err := readString(o["type"], p+".type")
	if err != nil {
		return chatTool{}, err
	}
	if typ != "" && typ != "custom" {
		return chatTool{}, invalid(p+".type", "tools of type %q are not supported by this server; only client tools (name, description, input_schema) are", typ)
	}
	f := chatFunction{}
	if f.Name, err = readString(o["name"], p+".name"); err != nil {
		return chatTool{}, err
	}
	if f.Name == "" {
		return chatTool{}, invalid(p+".name", "Field required")
	}
	if f.Description, err = readString(o["description"], p+".description"); err != nil {
		return chatTool{}, err
	}
	if s := o["input_schema"]; !isNull(s) {
		if _, err := readObject(s, p+".input_schema"); err != nil {
			return chatTool{}, err
		}
		f.Parameters = compact(s)
	}
	if f.Strict, err = readBool(o["strict"], p+".strict"); err != nil {
		return chatTool{}, err
	}
	return chatTool{Type: "function", Function: f}, nil
}

// readToolChoice maps tool_choice: auto → "auto", any → "required",
// tool → {type: function, function: {name}}, none → "none";
// disable_parallel_tool_use → parallel_tool_calls: false.
func (r *Request) readToolChoice(raw json.RawMessage) error {
	const p = "tool_choice"
	if isNull(raw) {
		return nil
	}
	o, err := readObject(raw, p)
	if err != nil {
		return err
	}
	typ, err := readString(o["type"], p+".type")
	if err != nil {
		return err
	}
	var choice any
	switch typ {
	case "auto":
		choice = "auto"
	case "any":
		choice = "required"
	case "none":
		choice = "none"
	case "tool":
		name, err := readString(o["name"], p+".name")
		if err != nil {
			return err
		}
		if name == "" {
			return invalid(p+".name", "Field required")
		}
		type fn struct {
			Name string `json:"name"`
		}
		choice = struct {
			Type     string `json:"type"`
			Function fn     `json:"function"`
		}{"function", fn{name}}
	default:
		return invalid(p+".type", "Input should be 'auto', 'any', 'tool' or 'none', not %q", typ)
	}
	if r.chat.ToolChoice, err = marshal(choice); err != nil {
		return err
	}
	off, err := readBool(o["disable_parallel_tool_use"], p+".disable_parallel_tool_use")
	if err != nil {
		return err
	}
	if off != nil && *off {
		no := false
		r.chat.ParallelToolCalls = &no
	}
	return nil
}
