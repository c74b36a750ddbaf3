package messages

import (
	"strconv"
	"sync"
)

// The Encoder's events, written to its Writer or gathered into a message.

// head is a message as message_start carries it (and as the non-streaming
// answer is, with its content, stop and usage filled in).
type head struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []any   `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        usage   `json:"usage"`
}

// begin sends message_start once, before the answer's first event. Its
// usage is zero: the turn's usage is known at its end, in message_delta,
// whose counts the SDKs take over message_start's.
func (e *Encoder) begin() error {
	if e.started {
		return nil
	}
	e.started = true
	if e.w == nil {
		return nil
	}
	b, err := marshal(struct {
		Type    string `json:"type"`
		Message head   `json:"message"`
	}{"message_start", head{ID: e.opts.ID, Type: "message", Role: "assistant", Model: e.opts.Model, Content: []any{}}})
	if err != nil {
		return err
	}
	return e.event("message_start", b)
}

// event writes one event; the stream's data buffer is reused.
func (e *Encoder) event(name string, data []byte) error {
	e.buf = data[:0]
	return e.w.WriteEvent(name, data)
}

// scratch is the event buffer, emptied, to write an event into: the one
// the last event was written from, or one from bufs after a Flush gave
// it back.
func (e *Encoder) scratch() []byte {
	if e.buf == nil {
		if b, _ := bufs.Get().(*[]byte); b != nil {
			e.buf, e.box = *b, b
		}
	}
	return e.buf[:0]
}

// giveBack puts the event buffer in bufs: the turn flushed, and waits.
// Each event is written out of it before the next one is begun, so
// between events it holds nothing.
func (e *Encoder) giveBack() {
	if e.buf == nil || cap(e.buf) > 64<<10 {
		e.buf = nil
		return
	}
	if e.box == nil {
		e.box = new([]byte)
	}
	*e.box = e.buf[:0]
	bufs.Put(e.box)
	e.buf, e.box = nil, nil
}

// bufs are the event buffers of streams that wait.
var bufs sync.Pool

// openBlock makes a block of type typ the open one, closing what was open.
func (e *Encoder) openBlock(typ string, b any) error {
	if e.open == typ && typ != "tool_use" {
		return nil
	}
	if err := e.settle(); err != nil {
		return err
	}
	return e.start(typ, b)
}

// start sends content_block_start for b, which stays open as typ.
func (e *Encoder) start(typ string, b any) error {
	if err := e.begin(); err != nil {
		return err
	}
	e.open = typ
	kind := ""
	switch typ {
	case "text":
		kind = deltaText
	case "thinking":
		kind = deltaThinking
	case "tool_use":
		kind = deltaInput
	}
	if e.w == nil {
		e.content = append(e.content, collected{head: b, kind: kind})
		e.n++
		return nil
	}
	data, err := marshal(struct {
		Type         string `json:"type"`
		Index        int    `json:"index"`
		ContentBlock any    `json:"content_block"`
	}{"content_block_start", e.n, b})
	if err != nil {
		return err
	}
	e.n++
	return e.event("content_block_start", data)
}

// delta adds piece to the open block.
func (e *Encoder) delta(kind, piece string) error {
	if piece == "" {
		return nil
	}
	if e.w == nil {
		e.content[len(e.content)-1].body.WriteString(piece)
		return nil
	}
	if e.frames == nil {
		return e.event("content_block_delta", appendDelta(e.scratch(), e.n-1, kind, piece))
	}
	b := append(e.scratch(), "event: content_block_delta\ndata: "...)
	b = append(appendDelta(b, e.n-1, kind, piece), "\n\n"...)
	e.buf = b[:0]
	return e.frames.WriteFrame(b)
}

// stopBlock closes the open block.
func (e *Encoder) stopBlock() error {
	if e.open == "" {
		return nil
	}
	if e.open == "tool_use" {
		e.calls[e.call].block = true
	}
	thinking := e.open == "thinking"
	e.open = ""
	if e.w == nil {
		if thinking {
			e.content[len(e.content)-1].sig = sum(e.think)
		}
		return nil
	}
	if thinking {
		// Anthropic sends a thinking block's signature last, as a
		// signature_delta; Claude Code keeps it and sends it back.
		if err := e.event("content_block_delta", appendDelta(e.scratch(), e.n-1, deltaSignature, sum(e.think))); err != nil {
			return err
		}
	}
	b := append(e.scratch(), `{"type":"content_block_stop","index":`...)
	b = strconv.AppendInt(b, int64(e.n-1), 10)
	return e.event("content_block_stop", append(b, '}'))
}

// whole sends a block complete in its content_block_start, and closes it.
func (e *Encoder) whole(b any) error {
	if err := e.start("whole", b); err != nil {
		return err
	}
	return e.stopBlock()
}

// openCall opens the tool_use block of client call i and sends what it
// has of its input.
func (e *Encoder) openCall(i int) error {
	c := e.calls[i]
	e.clients = true
	if err := e.start("tool_use", toolUseBlock{Type: "tool_use", ID: ToolUseID(c.id), Name: c.name, Input: emptyInput}); err != nil {
		return err
	}
	e.call = i
	return e.sendArgs(c)
}

// sendArgs sends the input of call c not sent yet.
func (e *Encoder) sendArgs(c *clientCall) error {
	s := c.args.String()
	if c.sent >= len(s) {
		return nil
	}
	piece := s[c.sent:]
	c.sent = len(s)
	return e.delta(deltaInput, piece)
}

// settle closes the open block and sends the client calls that waited
// for it, so the next block starts on a clean slate.
func (e *Encoder) settle() error {
	if err := e.stopBlock(); err != nil {
		return err
	}
	return e.sendWaiting(-1)
}

// sendWaiting sends each client call that waited for a block to close,
// whole, but call skip.
func (e *Encoder) sendWaiting(skip int) error {
	for i, c := range e.calls {
		if i == skip || c.block || c.id == "" && c.name == "" {
			continue
		}
		if err := e.openCall(i); err != nil {
			return err
		}
		if err := e.stopBlock(); err != nil {
			return err
		}
	}
	return nil
}

// Message returns the message object of an Encoder made by [NewMessage],
// once the turn is done:
//
//	{"id":"msg_…","type":"message","role":"assistant","model":"…","content":[…],
//	 "stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":5}}
func (e *Encoder) Message() ([]byte, error) {
	content := make([]any, 0, len(e.content))
	for i := range e.content {
		c := &e.content[i]
		switch b := c.head.(type) {
		case textBlock:
			b.Text = c.body.String()
			content = append(content, b)
		case thinkingBlock:
			b.Thinking, b.Signature = c.body.String(), c.sig
			content = append(content, b)
		case toolUseBlock:
			if c.kind == deltaInput {
				b.Input = inputOf([]byte(c.body.String()))
			}
			content = append(content, b)
		default:
			content = append(content, b)
		}
	}
	st := e.stop()
	return marshal(head{ID: e.opts.ID, Type: "message", Role: "assistant", Model: e.opts.Model,
		Content: content, StopReason: &st.StopReason, StopSequence: st.StopSequence, Usage: e.usage})
}
