package responses

import (
	"encoding/json"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
)

// Event is the turn's tool activity (display: events): each server call
// becomes an mcp_call item, a call waiting for approval an
// mcp_approval_request item first. With toolstream.events asked for, the
// event itself follows as a "toolstream.<event>" event.
func (e *Encoder) Event(ev *loop.Event) error {
	if err := e.begin(); err != nil {
		return err
	}
	if ev.Hosted != "" || e.hosted[ev.CallID] != nil {
		return e.hostedEvent(ev)
	}
	var c *serverCall
	var err error
	switch ev.Event {
	case "tool.started":
		c, err = e.toolStarted(ev)
	case "approval.requested":
		c, err = e.approvalRequested(ev)
	case "approval.resolved":
		c, err = e.approvalResolved(ev)
	case "tool.finished":
		c, err = e.toolFinished(ev)
	}
	if err == nil && !e.req.Events && ev.Event == "tool.progress" && e.opts.Writer != nil {
		// Not asked for: the progress still shows the stream is alive.
		return e.opts.Writer.Comment("keepalive")
	}
	if err != nil || !e.req.Events {
		return err
	}
	out := &toolstreamEvent{Type: "toolstream." + ev.Event, Seq: e.next(), Toolstream: ev}
	if c != nil && c.shown {
		out.ItemID = c.item.ID
	}
	return e.send(out.Type, out)
}

// toolStarted opens the call's mcp_call item, unless its tool asks for
// approval: that item follows the approval request, once decided.
func (e *Encoder) toolStarted(ev *loop.Event) (*serverCall, error) {
	if err := e.closeOpen(); err != nil {
		return nil, err
	}
	args := "{}"
	if len(ev.Arguments) > 0 {
		args = string(ev.Arguments)
	}
	c := &serverCall{callID: ev.CallID, item: mcpCallItem{ID: e.opts.NewID("mcp_"), Type: "mcp_call", Status: StatusInProgress,
		ServerLabel: e.label(ev.Name), Name: ev.Name, Arguments: args}}
	if ev.ActionID != "" { // a call resumed after its approval request
		id := ev.ActionID
		c.item.ApprovalRequestID = &id
	}
	e.addCall(c)
	if e.needsApproval(ev.Name) {
		return c, nil
	}
	return c, e.show(c)
}

// approvalRequested shows the call's approval request: its item is whole
// at once, and streamed only (see [Encoder]).
func (e *Encoder) approvalRequested(ev *loop.Event) (*serverCall, error) {
	c := e.call(ev)
	if err := e.closeOpen(); err != nil {
		return c, err
	}
	if e.wire() {
		return c, e.park(c, ev)
	}
	index := e.addSlot(true)
	item := approvalItem{ID: ev.ActionID, Type: "mcp_approval_request", ServerLabel: c.item.ServerLabel, Name: c.item.Name, Arguments: c.item.Arguments}
	if err := e.send(evItemAdded, &itemEvent{Type: evItemAdded, Seq: e.next(), OutputIndex: index, Item: item}); err != nil {
		return c, err
	}
	if ev.ActionID != "" {
		e.items[ev.ActionID] = []json.RawMessage{} // sent back, it stands for nothing: the mcp_call does
		id := ev.ActionID
		c.item.ApprovalRequestID = &id
	}
	return c, e.done(index, item)
}

// approvalResolved opens the call's mcp_call item once decided; a denied
// call finishes failed right after.
func (e *Encoder) approvalResolved(ev *loop.Event) (*serverCall, error) {
	c := e.call(ev)
	if c.shown {
		return c, nil
	}
	return c, e.show(c)
}

// toolFinished completes the call's mcp_call item with its whole result, and
// keeps what restores it: the call and its result as the model read them.
func (e *Encoder) toolFinished(ev *loop.Event) (*serverCall, error) {
	c := e.call(ev)
	if c.finished {
		return c, nil
	}
	if !c.shown {
		if err := e.show(c); err != nil {
			return c, err
		}
	}
	c.finished = true
	r := toolhost.Result{CallID: ev.CallID, Name: ev.Name, Status: ev.Status, Err: ev.Error}
	if ev.Full != nil {
		r = *ev.Full
	}
	typ := evMCPCompleted
	c.item.Status = StatusCompleted
	if r.Err != nil {
		typ, c.item.Status = evMCPFailed, StatusFailed
		msg := r.Err.Code + ": " + r.Err.Message
		c.item.Error = &msg
	} else {
		out := r.Content
		c.item.Output = &out
		if r.Status != "" && r.Status != toolhost.StatusOK {
			typ, c.item.Status = evMCPFailed, StatusFailed
		}
	}
	if err := e.send(typ, &callEvent{Type: typ, Seq: e.next(), ItemID: c.item.ID, OutputIndex: c.index}); err != nil {
		return c, err
	}
	msgs, err := restoreMessages(c, r)
	if err != nil {
		return c, err
	}
	e.items[c.item.ID] = msgs
	if e.results == nil {
		e.results = map[string]json.RawMessage{}
	}
	e.results[c.callID] = msgs[1]
	return c, e.done(c.index, c.item)
}

// show streams the call's mcp_call item as it starts: added, its
// arguments, in progress.
func (e *Encoder) show(c *serverCall) error {
	if err := e.closeOpen(); err != nil {
		return err
	}
	c.shown, c.index = true, e.addSlot(false)
	if err := e.send(evItemAdded, &itemEvent{Type: evItemAdded, Seq: e.next(), OutputIndex: c.index, Item: c.item}); err != nil {
		return err
	}
	if err := e.send(evMCPArgsDone, &argumentsDone{Type: evMCPArgsDone, Seq: e.next(), ItemID: c.item.ID, OutputIndex: c.index, Arguments: c.item.Arguments}); err != nil {
		return err
	}
	return e.send(evMCPInProgress, &callEvent{Type: evMCPInProgress, Seq: e.next(), ItemID: c.item.ID, OutputIndex: c.index})
}

// call is the server call an event is about; one the encoder did not see
// start (it cannot happen: every call starts with tool.started) is made
// from the event.
func (e *Encoder) call(ev *loop.Event) *serverCall {
	if c := e.mcp[ev.CallID]; c != nil {
		return c
	}
	c := &serverCall{callID: ev.CallID, item: mcpCallItem{ID: e.opts.NewID("mcp_"), Type: "mcp_call", Status: StatusInProgress,
		ServerLabel: e.label(ev.Name), Name: ev.Name, Arguments: "{}"}}
	e.addCall(c)
	return c
}

// addCall keeps server call c by its call id.
func (e *Encoder) addCall(c *serverCall) {
	if e.mcp == nil {
		e.mcp = map[string]*serverCall{}
	}
	e.mcp[c.callID] = c
}

// label is a tool's server_label: its MCP server's name, or
// [ServerLabel] for a webhook tool (and a name that is no tool).
func (e *Encoder) label(name string) string {
	if server := toolhost.MCPServerOf(e.tools[name].Source); server != "" {
		return server
	}
	return ServerLabel
}

// restoreMessages are the chat messages an mcp_call item stands for: the
// assistant's call and the result as the model read it. In a text-mode
// turn the turn's own history framing writes them in the model's syntax.
func restoreMessages(c *serverCall, r toolhost.Result) ([]json.RawMessage, error) {
	call, err := marshal(&chatMessage{Role: "assistant", ToolCalls: []chatToolCall{{ID: c.callID, Type: "function",
		Function: chatCallFunc{Name: c.item.Name, Arguments: c.item.Arguments}}}})
	if err != nil {
		return nil, err
	}
	result, err := marshal(&chatMessage{Role: "tool", ToolCallID: c.callID, Content: loop.ToolContent(r)})
	if err != nil {
		return nil, err
	}
	return []json.RawMessage{call, result}, nil
}
