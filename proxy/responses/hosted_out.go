package responses

import (
	"encoding/json"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/internal/hosted"
	"github.com/toolstream/toolstream/toolhost"
)

// The events of a web_search_call item, as OpenAI streams them.
const (
	evSearchInProgress = "response.web_search_call.in_progress"
	evSearchSearching  = "response.web_search_call.searching"
	evSearchCompleted  = "response.web_search_call.completed"
)

// statusSearching is a web_search_call's status while its tool runs.
const statusSearching = "searching"

// webSearchCallItem is a call of the client's hosted web search that a
// server tool ran (hosted_tools): what OpenAI's own search answers with.
// The results are the model's to read; the item lists their pages as
// action.sources.
type webSearchCallItem struct {
	ID     string    `json:"id"`
	Type   string    `json:"type"` // "web_search_call"
	Status string    `json:"status"`
	Action webAction `json:"action"`
}

// webAction is what a web_search_call did: a search for query, or (a
// web fetch) the page it opened.
type webAction struct {
	Type    string      `json:"type"` // "search" or "open_page"
	Query   string      `json:"query,omitempty"`
	URL     string      `json:"url,omitempty"`
	Sources []webSource `json:"sources,omitempty"`
}

type webSource struct {
	Type string `json:"type"` // "url"
	URL  string `json:"url"`
}

// hostedCall is one call of a hosted tool in the answer.
type hostedCall struct {
	item  webSearchCallItem
	index int
	args  string
	done  bool
}

// hostedEvent shows the events of a hosted tool's call (Event.Hosted) as a
// web_search_call item instead of an mcp_call: added and searching when
// it starts, completed with its sources when it finishes. A call waiting
// for approval is still an mcp_approval_request item first; the turn's
// own toolstream.* events are not sent for it.
func (e *Encoder) hostedEvent(ev *loop.Event) error {
	c := e.hosted[ev.CallID]
	switch ev.Event {
	case "tool.started":
		if c != nil {
			return nil
		}
		return e.hostedStart(ev, ev.Arguments)
	case "approval.requested":
		if c == nil {
			return nil
		}
		return e.hostedApproval(ev, c)
	case "tool.finished":
		if c == nil {
			var args json.RawMessage
			if ev.Full != nil {
				args = ev.Full.Arguments
			}
			if err := e.hostedStart(ev, args); err != nil {
				return err
			}
			c = e.hosted[ev.CallID]
		}
		return e.hostedFinish(ev, c)
	case "tool.progress":
		if e.opts.Writer != nil {
			return e.opts.Writer.Comment("keepalive")
		}
	}
	return nil
}

// hostedStart opens the call's web_search_call item.
func (e *Encoder) hostedStart(ev *loop.Event, args json.RawMessage) error {
	if err := e.closeOpen(); err != nil {
		return err
	}
	var a struct {
		Query string `json:"query"`
		URL   string `json:"url"`
	}
	_ = json.Unmarshal(args, &a)
	action := webAction{Type: "search", Query: a.Query}
	if ev.Hosted == config.HostedWebFetch {
		action = webAction{Type: "open_page", URL: a.URL}
	}
	c := &hostedCall{item: webSearchCallItem{ID: e.opts.NewID("ws_"), Type: "web_search_call", Status: StatusInProgress, Action: action},
		index: e.addSlot(false), args: "{}"}
	if json.Valid(args) && len(args) > 0 {
		c.args = string(args)
	}
	if e.hosted == nil {
		e.hosted = map[string]*hostedCall{}
	}
	e.hosted[ev.CallID] = c
	if err := e.send(evItemAdded, &itemEvent{Type: evItemAdded, Seq: e.next(), OutputIndex: c.index, Item: c.item}); err != nil {
		return err
	}
	if err := e.send(evSearchInProgress, &callEvent{Type: evSearchInProgress, Seq: e.next(), ItemID: c.item.ID, OutputIndex: c.index}); err != nil {
		return err
	}
	c.item.Status = statusSearching
	return e.send(evSearchSearching, &callEvent{Type: evSearchSearching, Seq: e.next(), ItemID: c.item.ID, OutputIndex: c.index})
}

// hostedApproval shows the approval a hosted call waits for, as any
// server call's: an mcp_approval_request item, streamed only.
func (e *Encoder) hostedApproval(ev *loop.Event, c *hostedCall) error {
	index := e.addSlot(true)
	item := approvalItem{ID: ev.ActionID, Type: "mcp_approval_request", ServerLabel: ServerLabel, Name: ev.Name, Arguments: c.args}
	if err := e.send(evItemAdded, &itemEvent{Type: evItemAdded, Seq: e.next(), OutputIndex: index, Item: item}); err != nil {
		return err
	}
	if ev.ActionID != "" {
		e.items[ev.ActionID] = []json.RawMessage{} // sent back, it stands for nothing: the web_search_call does
	}
	return e.done(index, item)
}

// hostedFinish completes the call's item with the pages its result
// lists, and keeps what the item stands for when sent back: the call and
// its whole result, as the model read them.
func (e *Encoder) hostedFinish(ev *loop.Event, c *hostedCall) error {
	if c.done {
		return nil
	}
	c.done = true
	r := toolhost.Result{CallID: ev.CallID, Name: ev.Name, Status: ev.Status, Err: ev.Error}
	if ev.Full != nil {
		r = *ev.Full
	}
	c.item.Status = StatusCompleted
	if r.Err != nil || (r.Status != "" && r.Status != toolhost.StatusOK) {
		c.item.Status = StatusFailed
	} else {
		for _, p := range hosted.Results(r.Content, ev.RunBy) {
			c.item.Action.Sources = append(c.item.Action.Sources, webSource{Type: "url", URL: p.URL})
		}
	}
	if err := e.send(evSearchCompleted, &callEvent{Type: evSearchCompleted, Seq: e.next(), ItemID: c.item.ID, OutputIndex: c.index}); err != nil {
		return err
	}
	msgs, err := restoreMessages(&serverCall{callID: ev.CallID, item: mcpCallItem{Name: ev.Name, Arguments: c.args}}, r)
	if err != nil {
		return err
	}
	e.items[c.item.ID] = msgs
	return e.done(c.index, c.item)
}
