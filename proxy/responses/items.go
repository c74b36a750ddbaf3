package responses

import (
	"encoding/json"
	"strings"
)

// The encoder's output items as it keeps them while they stream: a slot
// per item, the text of the message or reasoning being written, and the
// server calls shown as mcp_call items.

// slot is one output item; hidden ones are streamed but not part of the
// final output. A completed message keeps its text, a completed
// function_call its item: what a turn without tools stores (see
// plainMessages).
type slot struct {
	item    json.RawMessage
	hidden  bool
	message bool
	text    string
	// chat is what restores a completed message: the chat message of
	// its text.
	chat json.RawMessage
	call *functionCallItem
}

type textItem struct {
	id    string
	index int
	// ref is what every delta event of the item says of it (see
	// deltaRef).
	ref string
	// b is the item's text so far: a builder of its own rather than a
	// pooled buffer, so a stream that waits mid-message holds only the
	// text it has, not a buffer sized for a whole answer.
	b strings.Builder
	// held is trailing blank space not sent yet (see [Encoder.Text]).
	held string
	// lead is the paragraph break the item opens with, which the model
	// did not write: what restores the item leaves it out.
	lead string
}

// add appends s to the item's text.
func (t *textItem) add(s string) { t.b.WriteString(s) }

// String is the item's text.
func (t *textItem) String() string { return t.b.String() }

// newTextItem opens the next output item, a message or reasoning whose id
// starts with prefix.
func (e *Encoder) newTextItem(prefix string) *textItem {
	t := &textItem{id: e.opts.NewID(prefix), index: e.addSlot(false)}
	t.ref = deltaRef(t.id, t.index, true)
	return t
}

type serverCall struct {
	item     mcpCallItem
	callID   string
	index    int
	shown    bool
	finished bool
}
