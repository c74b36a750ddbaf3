package responses

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The kinds of client tool a call can come back as: each has its own
// output item (a function_call, a custom_tool_call, a tool_search_call).
const (
	kindFunction   = "function"
	kindCustom     = "custom"
	kindToolSearch = "tool_search"
)

// defaultNamespace is the namespace Codex puts its own core tools in
// (exec, wait, …): the name OpenAI's models know as the namespace of
// every plain function, so the model is offered them by their bare names.
const defaultNamespace = "functions"

// toolRef is what the client calls a tool the model is offered under a
// flat chat name: its kind, its namespace ("" for none) and its own name.
type toolRef struct {
	kind      string
	namespace string
	name      string
}

// flatName is the chat name of the tool name in namespace: the namespace
// and the name joined by "__" (Codex names an MCP server's namespace
// mcp__SERVER, so its tools read mcp__SERVER__tool, as Claude Code names
// them), or the bare name outside a namespace or in [defaultNamespace].
// A name already taken by another tool gets a suffix (see offer).
func flatName(namespace, name string) string {
	switch {
	case namespace == "" || namespace == defaultNamespace:
		return name
	case strings.HasSuffix(namespace, "_"):
		return namespace + name
	}
	return namespace + "__" + name
}

// offer adds a client tool to the round under a flat chat name, and
// returns that name. The same tool declared again (Codex repeats its
// tools in additional_tools and tool_search_output items) is offered
// once. A flat name another tool holds gets the first free "_2", "_3", …:
// tools are read in the order they appear, and a conversation only grows
// at its end, so each tool keeps its name from one request to the next.
func (r *Request) offer(ref toolRef, f chatFunction) string {
	if r.refs == nil {
		r.refs = map[string]toolRef{}
	}
	if flat, ok := r.flat[ref]; ok {
		return flat
	}
	base := flatName(ref.namespace, ref.name)
	if ref.kind == kindToolSearch {
		base = ref.name
	}
	flat := base
	for n := 2; ; n++ {
		if _, taken := r.refs[flat]; !taken {
			break
		}
		flat = base + "_" + strconv.Itoa(n)
	}
	if r.flat == nil {
		r.flat = map[toolRef]string{}
	}
	r.refs[flat], r.flat[ref] = ref, flat
	f.Name = flat
	r.chat.Tools = append(r.chat.Tools, chatTool{Type: "function", Function: f})
	r.ClientTools = append(r.ClientTools, flat)
	return flat
}

// flatOf is the chat name of a call the client sends back: the name its
// tool is offered under, or, for a tool no longer offered, the name it
// would have.
func (r *Request) flatOf(kind, namespace, name string) string {
	if flat, ok := r.flat[toolRef{kind, namespace, name}]; ok {
		return flat
	}
	if kind == kindCustom || kind == kindToolSearch {
		// A function of the same name is the same tool to the model.
		if flat, ok := r.flat[toolRef{kindFunction, namespace, name}]; ok {
			return flat
		}
	}
	return flatName(namespace, name)
}

// leaveOut notes a part of the request left out of the round: the route
// logs it (exchange.LeftOuter), once per kind.
func (r *Request) leaveOut(kind string) {
	for _, k := range r.leftOut {
		if k == kind {
			return
		}
	}
	r.leftOut = append(r.leftOut, kind)
}

// LeftOut lists what was left out of the request: tools, input items and
// content parts of kinds this proxy cannot honour, as "tool TYPE",
// "item TYPE" or "part TYPE".
func (r *Request) LeftOut() []string { return r.leftOut }

// readToolList reads a list of Responses tools at param: function,
// namespace, custom and tool_search tools are offered; hosted tools
// (offerHosted) are offers for the hosted-tool binding; any other type is
// left out.
func (r *Request) readToolList(raw json.RawMessage, param string) error {
	list, err := readArray(raw, param)
	if err != nil {
		return err
	}
	for i, t := range list {
		if r.offerHosted(t) {
			continue
		}
		if ok, err := r.readAsk(t, fmt.Sprintf("%s[%d]", param, i)); ok || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		if err := r.readTool(t, fmt.Sprintf("%s[%d]", param, i), ""); err != nil {
			return err
		}
	}
	return nil
}

// readTool reads one tool at param; namespace is the namespace it is
// declared in, "" at the top.
func (r *Request) readTool(raw json.RawMessage, param, namespace string) error {
	o, err := readObject(raw, param)
	if err != nil {
		return err
	}
	typ, err := readString(o["type"], param+".type")
	if err != nil {
		return err
	}
	switch typ {
	case "":
		return invalid(param+".type", "%s.type is required", param)
	case kindFunction:
		f, err := readFunction(o, param)
		if err != nil {
			return err
		}
		r.offer(toolRef{kindFunction, namespace, f.Name}, f)
	case "namespace":
		return r.readNamespace(o, param, namespace)
	case kindCustom:
		f, err := readCustom(o, param)
		if err != nil {
			return err
		}
		r.offer(toolRef{kindCustom, namespace, f.Name}, f)
	case kindToolSearch:
		f, err := readToolSearch(o, param)
		if err != nil {
			return err
		}
		r.offer(toolRef{kindToolSearch, namespace, f.Name}, f)
	default:
		r.leaveOut("tool " + typ)
	}
	return nil
}

// readNamespace offers the tools of a namespace tool under their flat
// names; a namespace inside a namespace is left out.
func (r *Request) readNamespace(o object, param, outer string) error {
	if outer != "" {
		r.leaveOut("tool namespace in a namespace")
		return nil
	}
	name, err := readString(o["name"], param+".name")
	if err != nil {
		return err
	}
	if name == "" {
		return invalid(param+".name", "%s.name is required", param)
	}
	if isNull(o["tools"]) {
		return nil
	}
	list, err := readArray(o["tools"], param+".tools")
	if err != nil {
		return err
	}
	for i, t := range list {
		if err := r.readTool(t, fmt.Sprintf("%s.tools[%d]", param, i), name); err != nil {
			return err
		}
	}
	return nil
}

// readFunction reads a function tool, which is flat ({type, name,
// description, parameters, strict}); chat nests the same fields under
// "function".
func readFunction(o object, param string) (chatFunction, error) {
	f, err := readNamed(o, param)
	if err != nil {
		return f, err
	}
	if p := o["parameters"]; !isNull(p) {
		if _, err := readObject(p, param+".parameters"); err != nil {
			return f, err
		}
		f.Parameters = compact(p)
	}
	if f.Strict, err = readBool(o["strict"], param+".strict"); err != nil {
		return f, err
	}
	return f, nil
}

// readInputTools reads the tools that arrive in the input: those of
// additional_tools items (Codex's default model sends its tools there,
// not in "tools") and of tool_search_output items (the tools a search
// loaded). They are offered like the tools in "tools".
func (r *Request) readInputTools(raw json.RawMessage) error {
	if isNull(raw) || raw[0] != '[' {
		return nil // readInput says what is wrong with it
	}
	items, err := readArray(raw, "input")
	if err != nil {
		return err
	}
	for i, raw := range items {
		it, err := readObject(raw, fmt.Sprintf("input[%d]", i))
		if err != nil {
			return err
		}
		typ, _ := readString(it["type"], "")
		if (typ == "additional_tools" || typ == "tool_search_output") && !isNull(it["tools"]) {
			if err := r.readToolList(it["tools"], fmt.Sprintf("input[%d].tools", i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// readNamed reads what every named tool has: its name, required, and
// its description.
func readNamed(o object, param string) (chatFunction, error) {
	f := chatFunction{}
	var err error
	if f.Name, err = readString(o["name"], param+".name"); err != nil {
		return f, err
	}
	if f.Name == "" {
		return f, invalid(param+".name", "%s.name is required", param)
	}
	f.Description, err = readString(o["description"], param+".description")
	return f, err
}
