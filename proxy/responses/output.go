package responses

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolstream/toolstream/loop/chunk"
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
	created, inProgress := e.next(), e.next()
	if e.opts.Writer == nil {
		return e.listTools()
	}
	// Both carry the response as it stands, the same bytes: they are
	// written once, after room for the longer head (and frame head), and
	// each event's head goes in front of them.
	const room = 128
	framed := e.framesResponse()
	b := append(e.event(), make([]byte, room)...)
	b = append(e.resp.appendJSON(b), '}')
	if framed {
		b = append(b, '\n', '\n')
	}
	*e.buf = b
	for _, ev := range [...]struct {
		typ string
		seq int
	}{{evCreated, created}, {evInProgress, inProgress}} {
		var h [room]byte
		head := h[:0]
		if framed {
			head = appendFrameHead(head, ev.typ)
		}
		head = append(appendHead(head, ev.typ, ev.seq), `,"response":`...)
		at := room - len(head)
		copy(b[at:], head)
		var err error
		if framed {
			err = e.frames.WriteFrame(b[at:])
		} else {
			err = e.opts.Writer.WriteEvent(ev.typ, b[at:])
		}
		if err != nil {
			return err
		}
	}
	return e.listTools()
}

// framesResponse says the events that carry the response object go out
// framed by the encoder (see frameOf): the Writer takes frames, and the
// response holds no line break. Its items are JSON the encoder or
// encoding/json wrote; only the request's settings it repeats came from
// elsewhere, compacted, and they are looked at once.
func (e *Encoder) framesResponse() bool {
	if e.frames == nil {
		return false
	}
	if e.respLines == 0 {
		e.respLines = 1
		for _, raw := range [...][]byte{e.resp.Reasoning, e.resp.Temperature, e.resp.Text, e.resp.ToolChoice,
			e.resp.Tools, e.resp.TopP, e.resp.Metadata} {
			if bytes.ContainsAny(raw, "\r\n") {
				e.respLines = 2
			}
		}
	}
	return e.respLines == 1
}

// sendResponse writes a response.* event carrying the response object
// as it stands.
func (e *Encoder) sendResponse(typ string) error {
	seq := e.next()
	if e.opts.Writer == nil {
		return nil
	}
	framed := e.framesResponse()
	b := e.event()
	if framed {
		b = appendFrameHead(b, typ)
	}
	b = appendHead(b, typ, seq)
	b = append(b, `,"response":`...)
	b = append(e.resp.appendJSON(b), '}')
	if framed {
		return e.writeFrame(typ, b)
	}
	return e.write(typ, b)
}

// event is the event buffer, emptied, to write an event into by hand.
func (e *Encoder) event() []byte {
	switch {
	case e.buf != nil:
	case e.opts.Writer == nil || e.released:
		e.buf = new([]byte) // nothing streams, or the answer ended
	default:
		e.buf = bufs.Get().(*[]byte)
	}
	return (*e.buf)[:0]
}

// write writes an event the encoder wrote into its buffer by hand.
func (e *Encoder) write(typ string, b []byte) error {
	*e.buf = b
	return e.opts.Writer.WriteEvent(typ, b)
}

// frameOf is the event buffer, emptied, with the head of typ's frame —
// "event: <typ>", "data: " — when the Writer takes frames: an event
// written after it and handed to writeFrame goes out without the
// Writer's copy into a frame of its own and its search for line breaks.
// Only JSON the encoder wrote itself, or encoding/json did, goes in such
// a frame: neither writes a raw line break, strings escape theirs and no
// white space goes between values.
func (e *Encoder) frameOf(typ string) []byte {
	b := e.event()
	if e.frames == nil {
		return b
	}
	return appendFrameHead(b, typ)
}

// appendFrameHead appends what comes before an event's JSON in its frame.
func appendFrameHead(dst []byte, typ string) []byte {
	dst = append(dst, "event: "...)
	dst = append(dst, typ...)
	return append(dst, "\ndata: "...)
}

// writeFrame writes the event b, begun with frameOf(typ).
func (e *Encoder) writeFrame(typ string, b []byte) error {
	if e.frames == nil {
		return e.write(typ, b)
	}
	b = append(b, '\n', '\n')
	*e.buf = b
	return e.frames.WriteFrame(b)
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

// delta writes a delta event of kind k of the item whose deltaRef is ref:
// the per-token path, encoded by hand, and framed too when the Writer
// takes frames.
func (e *Encoder) delta(k *deltaKind, ref string, s string) error {
	seq := e.next()
	if e.opts.Writer == nil {
		return nil
	}
	b := appendDeltaDigits(e.event(), k, e.frames != nil, e.digits.of(seq), ref, s)
	*e.buf = b
	if e.frames != nil {
		return e.frames.WriteFrame(b)
	}
	return e.opts.Writer.WriteEvent(k.name, b)
}

// openMessage sends the events that open message item t: the item, in
// progress, and its output_text part, empty.
func (e *Encoder) openMessage(t *textItem) error {
	if seq := e.next(); e.opts.Writer != nil {
		b := appendHead(e.frameOf(evItemAdded), evItemAdded, seq)
		b = append(b, `,"output_index":`...)
		b = strconv.AppendInt(b, int64(t.index), 10)
		b = append(b, `,"item":`...)
		b = appendMessageItem(b, t.id, StatusInProgress, false, "")
		if err := e.writeFrame(evItemAdded, append(b, '}')); err != nil {
			return err
		}
	}
	seq := e.next()
	if e.opts.Writer == nil {
		return nil
	}
	b := appendHead(e.frameOf(evPartAdded), evPartAdded, seq)
	b = appendItemRef(b, t.id, t.index, true)
	b = append(b, `,"part":`...)
	b = appendOutputText(b, "")
	return e.writeFrame(evPartAdded, append(b, '}'))
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
	return e.doneJSON(index, b)
}

// doneJSON is done for an item whose JSON is item, which the output
// keeps.
func (e *Encoder) doneJSON(index int, item []byte) error {
	e.slots[index].item = item
	seq := e.next()
	if e.opts.Writer == nil {
		return nil
	}
	return e.writeFrame(evItemDone, appendItemEvent(e.frameOf(evItemDone), evItemDone, seq, index, item))
}

// output is the final output: the completed items in order, approval
// requests left out.
func (e *Encoder) output() []json.RawMessage {
	out := make([]json.RawMessage, 0, len(e.slots))
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
	text := t.String()
	done := newDoneMessage(t.id, text)
	if seq := e.next(); e.opts.Writer != nil {
		b := appendHead(e.frameOf(evTextDone), evTextDone, seq)
		b = appendItemRef(b, t.id, t.index, true)
		b = append(b, `,"text":`...)
		b = append(b, done.text...)
		if err := e.writeFrame(evTextDone, append(b, `,"logprobs":[]}`...)); err != nil {
			return err
		}
	}
	if seq := e.next(); e.opts.Writer != nil {
		b := appendHead(e.frameOf(evPartDone), evPartDone, seq)
		b = appendItemRef(b, t.id, t.index, true)
		b = append(b, `,"part":`...)
		b = append(b, done.part...)
		if err := e.writeFrame(evPartDone, append(b, '}')); err != nil {
			return err
		}
	}
	// What restores it: {"role":"assistant","content":text}, the text as
	// the model wrote it (without the paragraph break it opens with).
	m := append(make([]byte, 0, len(done.text)+32), `{"role":"assistant","content":`...)
	if t.lead == "" {
		m = append(m, done.text...)
	} else {
		text = strings.TrimPrefix(text, t.lead)
		m = chunk.AppendJSONString(m, text)
	}
	m = append(m, '}')
	e.items[t.id] = []json.RawMessage{m}
	s := &e.slots[t.index]
	s.message, s.text, s.chat = true, text, m
	return e.doneJSON(t.index, done.item)
}

func (e *Encoder) closeThink() error {
	t := e.think
	if t == nil {
		return nil
	}
	e.think = nil
	text := t.String()
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
			Content: []reasoningPart{{Type: "reasoning_text", Text: t.String()}}}); err != nil {
			return err
		}
	}
	if t := e.text; t != nil {
		if err := cut(t.index, messageItem{ID: t.id, Type: "message", Status: StatusIncomplete, Role: "assistant",
			Content: []outputPart{outputText(t.String())}}); err != nil {
			return err
		}
	}
	for _, i := range e.forder {
		c := e.fcalls[i]
		c.item.Arguments, c.item.Status = c.args.String(), StatusIncomplete
		if err := cut(c.index, c.wireItem()); err != nil {
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
		if err := e.sendArgsDone(c); err != nil {
			return err
		}
		if err := e.restoreAs(c.item.ID, &chatMessage{Role: "assistant", ToolCalls: []chatToolCall{{ID: c.item.CallID, Type: "function",
			Function: chatCallFunc{Name: c.item.Name, Arguments: c.item.Arguments}}}}); err != nil {
			return err
		}
		item := c.item
		e.slots[c.index].call = &item
		if err := e.done(c.index, c.wireItem()); err != nil {
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

// keep hands the finished response, whose JSON is resp, to Options.Keep.
func (e *Encoder) keep(resp []byte) error {
	msgs := e.transcript
	if msgs == nil {
		var err error
		if msgs, err = e.plainMessages(); err != nil {
			return err
		}
	}
	e.opts.Keep(Finished{Response: resp, Messages: msgs, Items: e.items})
	return nil
}

// plainMessages is the assistant message of a turn without tools, which
// sends no transcript: the text the client read is what the model wrote
// (its message items, at most one between the client's calls), and its
// calls are the client's.
func (e *Encoder) plainMessages() ([]json.RawMessage, error) {
	if m := e.onlyMessage(); m != nil {
		return []json.RawMessage{m}, nil
	}
	var text strings.Builder
	m := &chatMessage{Role: "assistant"}
	for _, s := range e.slots {
		switch {
		case s.item == nil || s.hidden:
		case s.message:
			text.WriteString(asRead(s.text))
		case s.call != nil:
			m.ToolCalls = append(m.ToolCalls, chatToolCall{ID: asRead(s.call.CallID), Type: "function",
				Function: chatCallFunc{Name: asRead(s.call.Name), Arguments: asRead(s.call.Arguments)}})
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

// onlyMessage is the chat message of the answer's one output item, when
// that is a message of valid UTF-8 — the common answer without tools:
// what restores the item is then the message plainMessages would write,
// byte for byte. Otherwise it is nil.
func (e *Encoder) onlyMessage() json.RawMessage {
	var only *slot
	for i := range e.slots {
		s := &e.slots[i]
		if s.item == nil || s.hidden {
			continue
		}
		if only != nil || !s.message {
			return nil
		}
		only = s
	}
	if only == nil || !utf8.ValidString(only.text) {
		return nil
	}
	return only.chat
}

// asRead is s as a client reads it back from its item's JSON: each byte
// that is not UTF-8 is U+FFFD, as encoding/json writes it.
func asRead(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
