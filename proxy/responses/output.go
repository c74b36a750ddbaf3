package responses

import (
	"encoding/json"
	"strings"
)

// How the encoder writes: events in sequence, the output items by index,
// items closed when other output comes between, and what a finished
// response keeps.

// begin sends response.created and response.in_progress, once, before
// anything else: the stream's first write, its commit point.
func (e *Encoder) begin() error {
	if e.started {
		return nil
	}
	e.started = true
	if err := e.send(evCreated, &responseEvent{Type: evCreated, Seq: e.next(), Response: &e.resp}); err != nil {
		return err
	}
	return e.send(evInProgress, &responseEvent{Type: evInProgress, Seq: e.next(), Response: &e.resp})
}

// next is the next event's sequence_number.
func (e *Encoder) next() int {
	n := e.seq
	e.seq++
	return n
}

// send writes one event, when streaming.
func (e *Encoder) send(typ string, v any) error {
	if e.opts.Writer == nil {
		return nil
	}
	b, err := marshal(v)
	if err != nil {
		return err
	}
	return e.opts.Writer.WriteEvent(typ, b)
}

// delta writes a delta event: the per-token path, encoded by hand.
func (e *Encoder) delta(typ, itemID string, index int, content bool, s string) error {
	seq := e.next()
	if e.opts.Writer == nil {
		return nil
	}
	e.buf = appendDelta(e.buf[:0], typ, seq, itemID, index, content, s)
	return e.opts.Writer.WriteEvent(typ, e.buf)
}

// addSlot reserves the next output index.
func (e *Encoder) addSlot(hidden bool) int {
	e.slots = append(e.slots, slot{hidden: hidden})
	return len(e.slots) - 1
}

// done completes the item at index: output_item.done, and its place in
// the final output.
func (e *Encoder) done(index int, item any) error {
	b, err := marshal(item)
	if err != nil {
		return err
	}
	e.slots[index].item = b
	return e.send(evItemDone, &itemEvent{Type: evItemDone, Seq: e.next(), OutputIndex: index, Item: json.RawMessage(b)})
}

// output is the final output: the completed items in order, approval
// requests left out.
func (e *Encoder) output() []json.RawMessage {
	out := []json.RawMessage{}
	for _, s := range e.slots {
		if s.item != nil && !s.hidden {
			out = append(out, s.item)
		}
	}
	return out
}

// closeOpen ends the open message and reasoning items: tool activity
// comes between stretches of text.
func (e *Encoder) closeOpen() error {
	if err := e.closeThink(); err != nil {
		return err
	}
	return e.closeText()
}

func (e *Encoder) closeText() error {
	t := e.text
	if t == nil {
		return nil
	}
	e.text = nil
	text := t.b.String()
	if err := e.send(evTextDone, &outputTextDone{Type: evTextDone, Seq: e.next(), ItemID: t.id, OutputIndex: t.index, Text: text, Logprobs: []any{}}); err != nil {
		return err
	}
	part := outputText(text)
	if err := e.send(evPartDone, &partEvent{Type: evPartDone, Seq: e.next(), ItemID: t.id, OutputIndex: t.index, Part: part}); err != nil {
		return err
	}
	if err := e.restoreAs(t.id, &chatMessage{Role: "assistant", Content: text}); err != nil {
		return err
	}
	return e.done(t.index, messageItem{ID: t.id, Type: "message", Status: StatusCompleted, Role: "assistant", Content: []outputPart{part}})
}

func (e *Encoder) closeThink() error {
	t := e.think
	if t == nil {
		return nil
	}
	e.think = nil
	text := t.b.String()
	if err := e.send(evReasoningDone, &reasoningTextDone{Type: evReasoningDone, Seq: e.next(), ItemID: t.id, OutputIndex: t.index, Text: text}); err != nil {
		return err
	}
	part := reasoningPart{Type: "reasoning_text", Text: text}
	if err := e.send(evPartDone, &partEvent{Type: evPartDone, Seq: e.next(), ItemID: t.id, OutputIndex: t.index, Part: part}); err != nil {
		return err
	}
	e.items[t.id] = []json.RawMessage{} // reasoning is not sent back upstream
	return e.done(t.index, reasoningItem{ID: t.id, Type: "reasoning", Summary: []any{}, Content: []reasoningPart{part}})
}

// cutOpen puts the items still open when the turn failed in the output,
// with status incomplete and what the client read of them, so the failed
// response shows how far it got; no *.done event is sent for them: they
// did not finish.
func (e *Encoder) cutOpen() error {
	cut := func(index int, item any) error {
		b, err := marshal(item)
		e.slots[index].item = b
		return err
	}
	if t := e.think; t != nil {
		if err := cut(t.index, reasoningItem{ID: t.id, Type: "reasoning", Summary: []any{},
			Content: []reasoningPart{{Type: "reasoning_text", Text: t.b.String()}}}); err != nil {
			return err
		}
	}
	if t := e.text; t != nil {
		if err := cut(t.index, messageItem{ID: t.id, Type: "message", Status: StatusIncomplete, Role: "assistant",
			Content: []outputPart{outputText(t.b.String())}}); err != nil {
			return err
		}
	}
	for _, i := range e.forder {
		c := e.fcalls[i]
		c.item.Arguments, c.item.Status = c.args.String(), StatusIncomplete
		if err := cut(c.index, c.item); err != nil {
			return err
		}
	}
	for _, c := range e.mcp {
		if c.shown && !c.finished {
			c.item.Status = StatusIncomplete
			if err := cut(c.index, c.item); err != nil {
				return err
			}
		}
	}
	e.text, e.think, e.forder = nil, nil, nil
	return nil
}

// closeCalls completes the client's calls, in the order they came.
func (e *Encoder) closeCalls() error {
	for _, i := range e.forder {
		c := e.fcalls[i]
		c.item.Arguments, c.item.Status = c.args.String(), StatusCompleted
		if err := e.send(evArgsDone, &argumentsDone{Type: evArgsDone, Seq: e.next(), ItemID: c.item.ID, OutputIndex: c.index, Arguments: c.item.Arguments}); err != nil {
			return err
		}
		if err := e.restoreAs(c.item.ID, &chatMessage{Role: "assistant", ToolCalls: []chatToolCall{{ID: c.item.CallID, Type: "function",
			Function: chatCallFunc{Name: c.item.Name, Arguments: c.item.Arguments}}}}); err != nil {
			return err
		}
		if err := e.done(c.index, c.item); err != nil {
			return err
		}
	}
	e.forder = nil
	return nil
}

// restoreAs keeps m as what the item id stands for when a client sends
// it back, or an item_reference to it.
func (e *Encoder) restoreAs(id string, m *chatMessage) error {
	b, err := marshal(m)
	if err != nil {
		return err
	}
	e.items[id] = []json.RawMessage{b}
	return nil
}

// keep hands the finished response to Options.Keep.
func (e *Encoder) keep() error {
	b, err := marshal(&e.resp)
	if err != nil {
		return err
	}
	msgs := e.transcript
	if msgs == nil {
		if msgs, err = e.plainMessages(); err != nil {
			return err
		}
	}
	e.opts.Keep(Finished{Response: b, Messages: msgs, Items: e.items})
	return nil
}

// plainMessages is the assistant message of a turn without tools, which
// sends no transcript: the text the client read is what the model wrote
// (its message items, at most one between the client's calls), and its
// calls are the client's.
func (e *Encoder) plainMessages() ([]json.RawMessage, error) {
	var text strings.Builder
	m := &chatMessage{Role: "assistant"}
	for _, s := range e.slots {
		var it struct {
			Type      string `json:"type"`
			CallID    string `json:"call_id"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
			Content   []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if s.item == nil || s.hidden || json.Unmarshal(s.item, &it) != nil {
			continue
		}
		switch it.Type {
		case "message":
			for _, p := range it.Content {
				text.WriteString(p.Text)
			}
		case "function_call":
			m.ToolCalls = append(m.ToolCalls, chatToolCall{ID: it.CallID, Type: "function", Function: chatCallFunc{Name: it.Name, Arguments: it.Arguments}})
		}
	}
	m.Content = text.String()
	if len(m.ToolCalls) > 0 && text.Len() == 0 {
		m.Content = nil
	}
	b, err := marshal(m)
	if err != nil {
		return nil, err
	}
	return []json.RawMessage{b}, nil
}
