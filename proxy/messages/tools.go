package messages

import (
	"encoding/json"
	"fmt"
)

// readTools reads tools and tool_choice. It runs after the messages, so
// that the tools a tool_reference named in the history are known: a
// deferred tool (defer_loading) is offered only once one named it.
func (r *Request) readTools(top object) error {
	var choice struct{ Type, Name string }
	if json.Unmarshal(top["tool_choice"], &choice) == nil && choice.Type == "tool" && choice.Name != "" {
		r.name(choice.Name) // a tool the client wants called now is offered
	}
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
			r.addTool(ct)
		}
	}
	return r.readToolChoice(top["tool_choice"])
}

// toolEntry is one tools entry as read: a client tool, Anthropic's tool
// search tool, or a kind left out.
type toolEntry struct {
	client   chatTool
	deferred bool // defer_loading: true
	search   *SearchTool
	toolset  *toolset
	leftOut  string // the kind left out, "" for none
}

// readTool reads one tools entry by its type (hosted kinds, which
// hosted_tools may bind, are read before it: offerHosted). A client tool ({name,
// description, input_schema}, type "custom" or none) becomes a chat
// function tool. Anthropic's tool search tools (tool_search_tool_regex_…
// / _bm25_…) are run here, over the deferred tools (search.go). Every
// other type — Anthropic's server tools (bash_…, text_editor_…,
// computer_…, code_execution_…, memory_…) and types newer than this
// package — runs on Anthropic's side: it is left out of the round and
// logged, never refused, so a stock agent's request still runs
// (docs/http-api.md).
func readTool(raw json.RawMessage, p string) (toolEntry, error) {
	o, err := readObject(raw, p)
	if err != nil {
		return toolEntry{}, err
	}
	typ, err := readString(o["type"], p+".type")
	if err != nil {
		return toolEntry{}, err
	}
	switch {
	case typ == "" || typ == "custom":
		return readClientTool(o, p)
	case searchKind(typ) != "":
		st, err := readSearchTool(o, typ, p)
		return toolEntry{search: st}, err
	case typ == "mcp_toolset":
		ts, err := readToolset(o, p) // mcpservers.go
		return toolEntry{toolset: ts}, err
	default:
		return toolEntry{leftOut: "tool " + typ}, nil
	}
}

// addTool adds a tools entry to the request. A deferred client tool that
// no tool_reference of the history named yet is kept aside: the model
// does not see it until a search finds it (search.go).
func (r *Request) addTool(e toolEntry) {
	switch {
	case e.leftOut != "":
		r.leave(e.leftOut)
	case e.toolset != nil:
		r.toolsets = append(r.toolsets, e.toolset)
	case e.search != nil && r.Search != nil:
		r.leave("tool search tool " + e.search.Name + " (a second one)")
	case e.search != nil:
		r.Search = e.search
	case e.deferred && !r.named[e.client.Function.Name]:
		r.deferred = append(r.deferred, e.client)
	default:
		r.chat.Tools = append(r.chat.Tools, e.client)
		r.ClientTools = append(r.ClientTools, e.client.Function.Name)
	}
}

// leave notes that kind was left out of the request (exchange.LeftOuter),
// once per kind.
func (r *Request) leave(kind string) {
	for _, k := range r.leftOut {
		if k == kind {
			return
		}
	}
	r.leftOut = append(r.leftOut, kind)
}

// readClientTool reads a client tool and its defer_loading.
func readClientTool(o object, p string) (toolEntry, error) {
	f := chatFunction{}
	var err error
	if f.Name, err = readString(o["name"], p+".name"); err != nil {
		return toolEntry{}, err
	}
	if f.Name == "" {
		return toolEntry{}, invalid(p+".name", "Field required")
	}
	if f.Description, err = readString(o["description"], p+".description"); err != nil {
		return toolEntry{}, err
	}
	if s := o["input_schema"]; !isNull(s) {
		if _, err := readObject(s, p+".input_schema"); err != nil {
			return toolEntry{}, err
		}
		f.Parameters = compact(s)
	}
	if f.Strict, err = readBool(o["strict"], p+".strict"); err != nil {
		return toolEntry{}, err
	}
	deferred, err := readBool(o["defer_loading"], p+".defer_loading")
	if err != nil {
		return toolEntry{}, err
	}
	return toolEntry{client: chatTool{Type: "function", Function: f}, deferred: deferred != nil && *deferred}, nil
}

// readReference reads a tool_reference block ({type: tool_reference,
// tool_name}): the deferred tool it names is offered from this request
// on. It returns what the model reads in its place.
func (r *Request) readReference(o object, p string) (string, error) {
	name, err := readString(o["tool_name"], p+".tool_name")
	if err != nil {
		return "", err
	}
	if name == "" {
		return "", invalid(p+".tool_name", "Field required")
	}
	r.name(name)
	return "Tool loaded: " + name, nil
}

// name marks a tool as named by a tool_reference.
func (r *Request) name(tool string) {
	if r.named == nil {
		r.named = map[string]bool{}
	}
	r.named[tool] = true
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
