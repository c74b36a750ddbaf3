package messages

import (
	"encoding/json"
	"hash"
	"strings"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
)

// Writer takes the events of a streamed answer. Anthropic names every
// event and repeats the name as its data's "type":
//
//	event: content_block_delta
//	data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}
//
// WriteEvent writes one event; data is only valid during the call.
type Writer interface {
	WriteEvent(name string, data []byte) error
}

// frameWriter is a [Writer] that also takes an event framed whole, as the
// stream carries it: "event: <name>\ndata: <json>\n\n". The encoder frames
// the event of every token itself — it wrote that JSON and knows it holds
// no line break — which saves the Writer a copy and a search per token.
// proxy's SSE writer is one.
type frameWriter interface {
	WriteFrame(frame []byte) error
}

// Options say what an Encoder's answer names.
type Options struct {
	// ID is the message id ("msg_…").
	ID string
	// Model is the model the client asked for; the answer names it.
	Model string
	// Tools are the turn's server tools. An mcp_tool_use block names the
	// MCP server its tool came from (toolhost.Tool.Source), or
	// "toolstream" for the proxy's own tools.
	Tools []toolhost.Tool

	// search is the turn's tool search (Anthropic's), nil without one:
	// its calls are server_tool_use and tool_search_tool_result blocks.
	search *toolSearch
}

// ServerName is the server_name of toolstream's own (webhook) tools.
const ServerName = "toolstream"

// Encoder is a turn's answer in the Messages API: a [loop.Out] that
// writes Anthropic's stream to a [Writer] ([NewStream]), or gathers the
// message object a client that did not stream reads ([NewMessage]).
//
// Blocks are sequential, as Anthropic sends them: one is open at a time,
// and the next one closes it. The model's reasoning is a thinking block,
// its text a text block, each call of a client tool a tool_use block
// whose input streams as input_json_delta. A server call shows (with
// display: events) as an mcp_tool_use block when it starts and an
// mcp_tool_result block when it finishes, each sent whole in its
// content_block_start; a call waiting for approval is its mcp_tool_use
// block, with pings until the result. The turn's other events (rounds,
// approvals, fallbacks) have no Anthropic form and are not sent: clients
// treat unknown event types as errors.
//
// Nothing is written before the turn's first event, so an error before it
// can still be an HTTP status; message_start goes out with that event.
type Encoder struct {
	// Ignore takes what the Messages API has no form for: the turn's
	// transcript, chat chunks.
	loop.Ignore
	w       Writer
	frames  frameWriter // w, when it takes frames
	opts    Options
	servers map[string]string

	buf     []byte  // the event being written
	box     *[]byte // what buf came from bufs in, kept to put it back in
	space   string  // white space held for the next text block (see Text)
	started bool
	n       int    // blocks so far: the next block's index
	open    string // the open block's type: "", "text", "thinking" or "tool_use"
	call    int    // the client call whose tool_use block is open
	calls   []*clientCall
	shown   map[string]bool // server calls whose mcp_tool_use went out
	clients bool            // a tool_use block went out

	finish, sequence string
	usage            usage
	done             bool

	content []collected // NewMessage: the blocks so far

	// think hashes the open thinking block's text, for its signature
	// (thinking.go), sent as it closes.
	think hash.Hash
}

// clientCall is one call of a client tool as its fragments arrive.
type clientCall struct {
	id, name string
	args     strings.Builder
	sent     int // bytes of args sent as input_json_delta
	block    bool
}

// collected is one block of a message gathered whole.
type collected struct {
	head any             // the block as it started
	kind string          // the delta type that adds to it, "" for none
	body strings.Builder // the deltas joined
	sig  string          // a thinking block's signature
}

// NewStream returns an Encoder that writes the answer to w as it happens.
func NewStream(w Writer, o Options) *Encoder {
	f, _ := w.(frameWriter)
	return &Encoder{w: w, frames: f, opts: o, servers: serverNames(o.Tools)}
}

// NewMessage returns an Encoder that gathers the answer; [Encoder.Message]
// returns it once the turn is done.
func NewMessage(o Options) *Encoder {
	return &Encoder{opts: o, servers: serverNames(o.Tools)}
}

func serverNames(tools []toolhost.Tool) map[string]string {
	m := make(map[string]string, len(tools))
	for _, t := range tools {
		if s := toolhost.MCPServerOf(t.Source); s != "" {
			m[t.Name] = s
		}
	}
	return m
}

// Takes asks for the turn as typed events; a message answered whole asks
// for no progress, which it would only drop (it has no pings).
func (e *Encoder) Takes() loop.Takes { return loop.Takes{NoProgress: e.w == nil} }

// Started reports whether anything was written: after it, an error can
// only be an error event.
func (e *Encoder) Started() bool { return e.started }

// Text is visible assistant text: a text_delta in a text block. White
// space that would open a block of its own is held until text follows,
// and goes out in front of it: a model writes line breaks between its tool
// calls, and a text block of nothing but "\n" between two tool blocks is
// noise in every client. Nothing is dropped but white space at the very
// end, so the text blocks joined are still the text the turn stored, which
// history stitching recognises when a client sends the text back without
// the tool blocks.
func (e *Encoder) Text(s string) error {
	if e.open != "text" && strings.TrimSpace(s) == "" {
		// A copy: s is only valid during the call (loop.Out).
		e.space += strings.Clone(s)
		return nil
	}
	s, e.space = e.space+s, ""
	if err := e.openBlock("text", textBlock{Type: "text"}); err != nil {
		return err
	}
	return e.delta(deltaText, s)
}

// Reasoning is the model's reasoning: a thinking_delta in a thinking block.
func (e *Encoder) Reasoning(s string) error {
	if e.open != "thinking" {
		if err := e.openBlock("thinking", thinkingBlock{Type: "thinking"}); err != nil {
			return err
		}
		e.think = newSigner(e.opts.Model)
	}
	e.think.Write([]byte(s))
	return e.delta(deltaThinking, s)
}

// ToolCall is a fragment of a call of a client tool. The first call's
// input streams as it comes; a call whose fragments arrive while another
// call's block is open waits, and goes out whole when that block closes
// (blocks are sequential; a chat upstream may interleave its calls).
func (e *Encoder) ToolCall(f loop.ToolCallDelta) error {
	for len(e.calls) <= f.Index {
		e.calls = append(e.calls, &clientCall{})
	}
	c := e.calls[f.Index]
	if c.id == "" {
		c.id = f.ID
	}
	if c.name == "" {
		c.name = f.Name
	}
	c.args.WriteString(f.Arguments)
	switch {
	case e.open == "tool_use" && e.call == f.Index:
		return e.sendArgs(c)
	case e.open == "tool_use":
		return nil // waits for the open block
	case c.block:
		// A fragment of a call whose block closed (text came between
		// two fragments of one call) cannot be sent any more; no
		// upstream seen does that.
		return nil
	}
	if err := e.stopBlock(); err != nil {
		return err
	}
	if err := e.sendWaiting(f.Index); err != nil {
		return err
	}
	return e.openCall(f.Index)
}

// Event is tool activity. tool.started sends a server call's mcp_tool_use
// block, tool.finished its mcp_tool_result block, tool.progress a ping
// (the stream is alive; Anthropic's SDKs throw on event types they do not
// know, so progress has no form of its own); other events have no
// Anthropic form.
func (e *Encoder) Event(ev *loop.Event) error {
	if ev.Hosted != "" {
		return e.hostedEvent(ev)
	}
	switch ev.Event {
	case "tool.progress":
		return e.Keepalive()
	case "tool.started":
		if e.isSearch(ev.Name) {
			return e.searchEvent(ev) // Anthropic's tool search: its own blocks
		}
		if err := e.settle(); err != nil {
			return err
		}
		return e.toolUse(ev.CallID, ev.Name, ev.Arguments)
	case "tool.finished":
		if e.isSearch(ev.Name) {
			return e.searchEvent(ev)
		}
		if err := e.settle(); err != nil {
			return err
		}
		if !e.shown[ev.CallID] {
			// Its mcp_tool_use must come first: the AI SDK looks the
			// result's call up by its id.
			var args json.RawMessage
			if ev.Full != nil {
				args = ev.Full.Arguments
			}
			if err := e.toolUse(ev.CallID, ev.Name, args); err != nil {
				return err
			}
		}
		return e.whole(toolResultBlock{Type: "mcp_tool_result", ToolUseID: MCPToolUseID(ev.CallID),
			IsError: ev.Status != toolhost.StatusOK, Content: []textBlock{{Type: "text", Text: resultText(ev)}}})
	}
	return nil
}

// toolUse sends a server call's mcp_tool_use block.
func (e *Encoder) toolUse(callID, name string, args json.RawMessage) error {
	if e.shown == nil {
		e.shown = map[string]bool{}
	}
	e.shown[callID] = true
	server := e.servers[name]
	if server == "" {
		server = ServerName
	}
	return e.whole(toolUseBlock{Type: "mcp_tool_use", ID: MCPToolUseID(callID), Name: name, ServerName: server, Input: inputOf(args)})
}

// resultText is what an mcp_tool_result says: the whole result, or the
// error the model read.
func resultText(ev *loop.Event) string {
	r := ev.Full
	switch {
	case r != nil && r.Err != nil:
		return r.Err.Code + ": " + r.Err.Message
	case r != nil:
		return r.Content
	case ev.Error != nil:
		return ev.Error.Code + ": " + ev.Error.Message
	}
	return string(ev.Result)
}

// Finish is the turn's finish_reason; every block closes.
func (e *Encoder) Finish(reason string) error {
	e.finish = reason
	return e.settle()
}

// StopSequence is the stop sequence the upstream says ended the answer.
func (e *Encoder) StopSequence(s string) error {
	e.sequence = s
	return nil
}

// Usage is the turn's usage, summed over its rounds.
func (e *Encoder) Usage(u json.RawMessage) error {
	hosted := e.usage.ServerToolUse
	e.usage = chatUsage(u)
	e.usage.ServerToolUse = hosted
	return nil
}

// Keepalive is a ping event.
func (e *Encoder) Keepalive() error {
	if e.w == nil {
		return nil // a message has no pings
	}
	if err := e.begin(); err != nil {
		return err
	}
	return e.event("ping", append(e.scratch(), `{"type":"ping"}`...))
}

// Done ends the answer: every block closes, then message_delta with the
// stop reason and the usage, then message_stop.
func (e *Encoder) Done() error {
	if err := e.begin(); err != nil {
		return err
	}
	if err := e.settle(); err != nil {
		return err
	}
	e.done = true
	if e.w == nil {
		return nil
	}
	b, err := marshal(struct {
		Type  string     `json:"type"`
		Delta stopFields `json:"delta"`
		Usage usage      `json:"usage"`
	}{"message_delta", e.stop(), e.usage})
	if err != nil {
		return err
	}
	if err := e.event("message_delta", b); err != nil {
		return err
	}
	return e.event("message_stop", append(e.scratch(), `{"type":"message_stop"}`...))
}

// stopFields are the stop_reason and stop_sequence of the answer.
type stopFields struct {
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

func (e *Encoder) stop() stopFields {
	r := stopReason(e.finish, e.clients, e.sequence)
	f := stopFields{StopReason: r}
	if r == stopSequence {
		f.StopSequence = &e.sequence
	}
	return f
}

// Hold turns holding on or off, when the Writer holds (proxy's SSE
// writer): the turn holds while it forwards events it
// already has, so the events of one read from the upstream leave in one
// write and one flush, as a chat stream's chunks do.
func (e *Encoder) Hold(on bool) error {
	if h, ok := e.w.(interface{ Hold(bool) error }); ok {
		return h.Hold(on)
	}
	return nil
}

// Flush writes out what the Writer holds; the turn flushes before it
// waits for anything, so no event waits for another.
func (e *Encoder) Flush() error {
	e.giveBack()
	if f, ok := e.w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

var (
	_ loop.Out = (*Encoder)(nil)
)
