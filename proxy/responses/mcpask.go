package responses

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
)

// Approvals in OpenAI's own wire form (docs/http-api.md): an mcp tool
// whose server_label is "toolstream" asks for the turn's server tools the
// way OpenAI's hosted MCP tools work. allowed_tools narrows them,
// require_approval adds approval to their calls, and a call that needs
// approval ends the response with an mcp_approval_request item, which
// the next request answers with an mcp_approval_response item.

// Answer is an mcp_approval_response input item: the client's decision
// on the approval request (the action) it names.
type Answer struct {
	// ActionID is the item's approval_request_id: the action's id.
	ActionID string
	Approve  bool
	Reason   string
	// Param names the item, for an error about it.
	Param string
}

// readAsk reads an mcp tool at param; it reports false for a tool that
// is not one, or names another server (left out, as before).
func (r *Request) readAsk(raw json.RawMessage, param string) (bool, error) {
	o, err := readObject(raw, param)
	if err != nil {
		return false, nil // readTool says what is wrong with it
	}
	if typ, _ := readString(o["type"], param+".type"); typ != "mcp" {
		return false, nil
	}
	label, err := readString(o["server_label"], param+".server_label")
	if err != nil {
		return false, err
	}
	if label != ServerLabel {
		if isNull(o["server_url"]) {
			return false, nil // a connector_id: OpenAI's own, left out
		}
		return true, r.readServer(o, param, label) // mcpservers.go
	}
	if r.Ask != nil {
		return true, invalid(param, "%s: only one mcp tool may name %q", param, ServerLabel)
	}
	allowed, err := readToolNames(o["allowed_tools"], param+".allowed_tools")
	if err != nil {
		return true, err
	}
	require, err := readRequire(o["require_approval"], param+".require_approval")
	if err != nil {
		return true, err
	}
	if allowed == nil && !isNull(o["allowed_tools"]) {
		allowed = []string{} // an empty list offers none
	}
	r.Ask = &loop.ServerAsk{Allowed: allowed, Require: require}
	return true, nil
}

// readToolNames reads a list of tool names, or {tool_names: […]} as
// OpenAI's filters are written; nil when not given.
func readToolNames(raw json.RawMessage, param string) ([]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	if raw[0] == '{' {
		o, err := readObject(raw, param)
		if err != nil {
			return nil, err
		}
		if !isNull(o["read_only"]) {
			return nil, unsupported(param+".read_only", CodeUnsupportedParameter, "%s.read_only is not supported by this server: toolstream's tools carry no read-only hint; list the tool_names", param)
		}
		return readToolNames(o["tool_names"], param+".tool_names")
	}
	list, err := readArray(raw, param)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list))
	for i, v := range list {
		s, err := readString(v, fmt.Sprintf("%s[%d]", param, i))
		if err != nil {
			return nil, err
		}
		names = append(names, s)
	}
	return names, nil
}

// readRequire reads require_approval: "always" (also when not given, as
// OpenAI's default), "never", or {always: {tool_names}, never:
// {tool_names}}, where a tool in neither list needs approval, as with
// OpenAI.
func readRequire(raw json.RawMessage, param string) (func(string) bool, error) {
	if isNull(raw) {
		return func(string) bool { return true }, nil
	}
	if raw[0] == '"' {
		s, err := readString(raw, param)
		if err != nil {
			return nil, err
		}
		switch s {
		case "always":
			return func(string) bool { return true }, nil
		case "never":
			return nil, nil
		}
		return nil, invalid(param, "%s must be \"always\", \"never\" or {\"always\": {\"tool_names\": […]}, \"never\": {\"tool_names\": […]}}, not %q", param, s)
	}
	o, err := readObject(raw, param)
	if err != nil {
		return nil, err
	}
	always, err := readToolNames(o["always"], param+".always")
	if err != nil {
		return nil, err
	}
	never, err := readToolNames(o["never"], param+".never")
	if err != nil {
		return nil, err
	}
	return func(name string) bool {
		return slices.Contains(always, name) || !slices.Contains(never, name)
	}, nil
}

// readAnswer reads an mcp_approval_response input item.
func (r *Request) readAnswer(it object, param string) error {
	id, err := readString(it["approval_request_id"], param+".approval_request_id")
	if err != nil {
		return err
	}
	if id == "" {
		return invalid(param+".approval_request_id", "%s.approval_request_id is required: it names the mcp_approval_request answered", param)
	}
	approve, err := readBool(it["approve"], param+".approve")
	if err != nil {
		return err
	}
	if approve == nil {
		return invalid(param+".approve", "%s.approve is required (true or false)", param)
	}
	reason, err := readString(it["reason"], param+".reason")
	if err != nil {
		return err
	}
	r.Answers = append(r.Answers, Answer{ActionID: id, Approve: *approve, Reason: reason, Param: param})
	return nil
}

// askDisplay refuses a display other than events in a request that asks
// for the server tools in OpenAI's form, or names MCP servers of its own: its calls, their approval
// requests and the results the conversation goes on from are the
// response's items, which only events make.
func askDisplay(r *Request, body, header string) error {
	if r.Ask == nil && len(r.Servers) == 0 {
		return nil
	}
	for _, d := range [...]struct{ param, value string }{{"toolstream.display", body}, {"X-Toolstream-Display", header}} {
		if d.value != "" && d.value != config.DisplayEvents {
			return invalid(d.param, "%s %q: a request with an mcp tool shows its calls as mcp_call and mcp_approval_request items, which need display \"events\" (the default here)", d.param, d.value)
		}
	}
	return nil
}
