package responses

import (
	"encoding/json"
	"strings"

	"github.com/toolstream/toolstream/loop"
)

// Events of a custom tool call's input.
const (
	evCustomDelta = "response.custom_tool_call_input.delta"
	evCustomDone  = "response.custom_tool_call_input.done"
)

// clientCall is a call of the client's own tools: item is it as a chat
// call (its flat name), tool the tool it calls, which decides the item
// the client reads (wireItem).
type clientCall struct {
	item  functionCallItem
	tool  toolRef
	index int
	ref   string
	args  strings.Builder
}

// newClientCall opens the item of a call of the client's tool named
// f.Name (its flat name, see offer), in the next output slot.
func (e *Encoder) newClientCall(f loop.ToolCallDelta) *clientCall {
	tool, ok := e.req.refs[f.Name]
	if !ok {
		tool = toolRef{kind: kindFunction, name: f.Name}
	}
	c := &clientCall{index: e.addSlot(false), tool: tool, item: functionCallItem{ID: e.opts.NewID(callPrefix(tool.kind)),
		Type: "function_call", Status: StatusInProgress, CallID: f.ID, Name: f.Name}}
	c.ref = deltaRef(c.item.ID, c.index, false)
	return c
}

// callPrefix is the id prefix of a call item of kind, as OpenAI's.
func callPrefix(kind string) string {
	switch kind {
	case kindCustom:
		return "ctc_"
	case kindToolSearch:
		return "tsc_"
	}
	return "fc_"
}

// wireItem is the call's item as the client reads it: a function_call
// (with its namespace and bare name for a namespace's tool), a
// custom_tool_call whose input is the model's text, or a
// tool_search_call whose arguments are an object.
func (c *clientCall) wireItem() any {
	it := c.item
	switch c.tool.kind {
	case kindCustom:
		return customCallItem{ID: it.ID, Type: "custom_tool_call", Status: it.Status, CallID: it.CallID,
			Namespace: c.tool.namespace, Name: c.tool.name, Input: customInput(it.Arguments)}
	case kindToolSearch:
		return toolSearchCallItem{ID: it.ID, Type: "tool_search_call", Status: it.Status, CallID: it.CallID,
			Execution: "client", Arguments: searchArguments(it.Arguments)}
	}
	if c.tool.namespace != "" {
		it.Namespace, it.Name = c.tool.namespace, c.tool.name
	}
	return it
}

// sendArgsDone sends the event that ends a call's arguments: a
// function's arguments done, or a custom tool's whole input (a delta and
// done); a tool search's arguments are whole in its item.
func (e *Encoder) sendArgsDone(c *clientCall) error {
	switch c.tool.kind {
	case kindFunction:
		return e.send(evArgsDone, &argumentsDone{Type: evArgsDone, Seq: e.next(), ItemID: c.item.ID, OutputIndex: c.index, Arguments: c.item.Arguments})
	case kindCustom:
		input := customInput(c.item.Arguments)
		if err := e.send(evCustomDelta, &customInputEvent{Type: evCustomDelta, Seq: e.next(), ItemID: c.item.ID, OutputIndex: c.index, Delta: &input}); err != nil {
			return err
		}
		return e.send(evCustomDone, &customInputEvent{Type: evCustomDone, Seq: e.next(), ItemID: c.item.ID, OutputIndex: c.index, Input: &input})
	}
	return nil
}

// customInputEvent is a custom tool call's input: a delta, or done with
// the whole input.
type customInputEvent struct {
	Type        string  `json:"type"`
	Seq         int     `json:"sequence_number"`
	ItemID      string  `json:"item_id"`
	OutputIndex int     `json:"output_index"`
	Delta       *string `json:"delta,omitempty"`
	Input       *string `json:"input,omitempty"`
}

// customInput is a custom tool's input from the arguments the model
// wrote for its one parameter: {"input": "…"}. Arguments of another shape
// — one other string member, or not JSON at all (a model that wrote the
// text bare) — are taken as the model meant them.
func customInput(args string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &m) != nil {
		return args
	}
	pick := m["input"]
	if pick == nil && len(m) == 1 {
		for _, v := range m {
			pick = v
		}
	}
	var s string
	if json.Unmarshal(pick, &s) == nil {
		return s
	}
	if len(m) == 0 {
		return ""
	}
	return args
}

// searchArguments are a tool search's arguments as an object: what the
// model wrote when it is one, else {}.
func searchArguments(args string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &m) != nil || m == nil {
		return json.RawMessage(`{}`)
	}
	return compact(json.RawMessage(args))
}
