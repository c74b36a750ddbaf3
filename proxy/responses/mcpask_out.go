package responses

import (
	"encoding/json"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
)

// The answer's side of approvals in OpenAI's wire form (mcpask.go): an
// mcp_list_tools item opens the response, and each call parked for
// approval ends it with its mcp_approval_request item, kept in the final
// output, as OpenAI's hosted MCP tools answer.

// listToolsItem lists the turn's server tools under toolstream's label.
type listToolsItem struct {
	ID          string      `json:"id"`
	Type        string      `json:"type"`
	ServerLabel string      `json:"server_label"`
	Tools       []listedMCP `json:"tools"`
	Error       *string     `json:"error"`
}

type listedMCP struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Annotations *struct{}       `json:"annotations"`
}

// wire says the request asked for the server tools in OpenAI's form, or
// named MCP servers of its own, whose tools are answered in it.
func (e *Encoder) wire() bool { return e.req.Ask != nil || len(e.req.Servers) > 0 }

// listTools opens a wire-form response with its mcp_list_tools item,
// unless the conversation listed them already (an mcp_list_tools item in
// the input, a response continued, a call resumed).
func (e *Encoder) listTools() error {
	r := e.req
	if !e.wire() || r.Listed || r.PreviousResponseID != "" || len(r.Resume) > 0 {
		return nil
	}
	if r.Ask != nil {
		if err := e.listItem(ServerLabel, func(t toolhost.Tool) bool { return toolhost.RequestServerOf(t.Source) == "" }); err != nil {
			return err
		}
	}
	for _, s := range r.Servers {
		label := s.Label
		if err := e.listItem(label, func(t toolhost.Tool) bool { return toolhost.RequestServerOf(t.Source) == label }); err != nil {
			return err
		}
	}
	return nil
}

// listItem sends the mcp_list_tools item of server label: the turn's
// tools that of says are its.
func (e *Encoder) listItem(label string, of func(toolhost.Tool) bool) error {
	item := listToolsItem{ID: e.opts.NewID("mcpl_"), Type: "mcp_list_tools", ServerLabel: label, Tools: []listedMCP{}}
	for _, t := range e.opts.Tools {
		if !of(t) {
			continue
		}
		schema := t.Parameters
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		item.Tools = append(item.Tools, listedMCP{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	index := e.addSlot(false)
	if err := e.send(evItemAdded, &itemEvent{Type: evItemAdded, Seq: e.next(), OutputIndex: index, Item: item}); err != nil {
		return err
	}
	e.items[item.ID] = []json.RawMessage{} // sent back, it stands for nothing
	return e.done(index, item)
}

// needsApproval says a call of name waits for a decision: its config asks
// for one, or the request's require_approval does.
func (e *Encoder) needsApproval(name string) bool {
	if a := e.tools[name].Approval; a == toolhost.ApprovalAlways || a == toolhost.ApprovalAdmin {
		return true
	}
	return e.req.Ask != nil && e.req.Ask.Require != nil && e.req.Ask.Require(name)
}

// park keeps a parked call's approval request for the end of the
// response, where OpenAI puts it: the round's other calls may still
// finish after it.
func (e *Encoder) park(c *serverCall, ev *loop.Event) error {
	call, err := marshal(&chatMessage{Role: "assistant", ToolCalls: []chatToolCall{{ID: c.callID, Type: "function",
		Function: chatCallFunc{Name: c.item.Name, Arguments: c.item.Arguments}}}})
	if err != nil {
		return err
	}
	e.items[ev.ActionID] = []json.RawMessage{call}
	e.parked = append(e.parked, approvalItem{ID: ev.ActionID, Type: "mcp_approval_request", ServerLabel: c.item.ServerLabel, Name: c.item.Name, Arguments: c.item.Arguments})
	return nil
}

// closeParked ends the response with its parked approval requests.
func (e *Encoder) closeParked() error {
	for _, item := range e.parked {
		index := e.addSlot(false)
		if err := e.send(evItemAdded, &itemEvent{Type: evItemAdded, Seq: e.next(), OutputIndex: index, Item: item}); err != nil {
			return err
		}
		if err := e.done(index, item); err != nil {
			return err
		}
	}
	e.parked = nil
	return nil
}

// fillResumed gives the result slots of calls resumed in this response
// (Request.Resume) their results, as the model read them: the stored
// conversation goes on from what ran.
func (e *Encoder) fillResumed(conv []json.RawMessage) []json.RawMessage {
	if len(e.req.Resume) == 0 {
		return conv
	}
	out := make([]json.RawMessage, len(conv))
	for i, m := range conv {
		out[i] = m
		var msg chatMessage
		if json.Unmarshal(m, &msg) != nil || msg.Role != "tool" || msg.Content != "" {
			continue
		}
		if r, ok := e.results[msg.ToolCallID]; ok {
			out[i] = r
		}
	}
	return out
}
