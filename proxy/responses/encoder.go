package responses

import (
	"encoding/json"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
)

// The event types a response streams.
const (
	evCreated        = "response.created"
	evInProgress     = "response.in_progress"
	evCompleted      = "response.completed"
	evIncomplete     = "response.incomplete"
	evFailed         = "response.failed"
	evItemAdded      = "response.output_item.added"
	evItemDone       = "response.output_item.done"
	evPartAdded      = "response.content_part.added"
	evPartDone       = "response.content_part.done"
	evTextDelta      = "response.output_text.delta"
	evTextDone       = "response.output_text.done"
	evReasoningDelta = "response.reasoning_text.delta"
	evReasoningDone  = "response.reasoning_text.done"
	evArgsDelta      = "response.function_call_arguments.delta"
	evArgsDone       = "response.function_call_arguments.done"
	evMCPArgsDone    = "response.mcp_call_arguments.done"
	evMCPInProgress  = "response.mcp_call.in_progress"
	evMCPCompleted   = "response.mcp_call.completed"
	evMCPFailed      = "response.mcp_call.failed"
	evError          = "error"
)

// ServerLabel is the server_label of an mcp_call item for a webhook tool,
// which belongs to no MCP server: the proxy serves it itself.
const ServerLabel = "toolstream"

// Writer is where a streamed response goes, one SSE event at a time;
// proxy's SSE writer implements it. A Writer that also has Hold and
// Flush (as proxy's SSE writer has) is held and flushed as the turn says.
type Writer interface {
	// WriteEvent writes one event: "event: <name>" and its JSON on one
	// "data:" line.
	WriteEvent(name string, data []byte) error
	// Comment writes an SSE comment (": keepalive").
	Comment(text string) error
}

// frameWriter is a [Writer] that also takes an event framed whole, as the
// stream carries it: "event: <name>\ndata: <json>\n\n". The encoder frames
// the event of every token itself — it wrote that JSON and knows it holds
// no line break — which saves the Writer a copy and a search per token.
// proxy's SSE writer is one.
type frameWriter interface {
	WriteFrame(frame []byte) error
}

// Options configure an [Encoder]. ID is required; the zero value of the
// others is usable.
type Options struct {
	// ID is the response's id ("resp_…"); Created its created_at, in Unix
	// seconds.
	ID      string
	Created int64
	// NewID mints the output items' ids from a prefix ("msg_", "rs_",
	// "fc_", "mcp_"); nil uses loop.NewID.
	NewID func(prefix string) string
	// Tools are the turn's server tools: an mcp_call item names its
	// tool's MCP server, and the call of a tool that asks for approval
	// shows its item once decided, after its mcp_approval_request.
	Tools []toolhost.Tool
	// Writer streams the response as events; nil collects it for
	// [Encoder.Response].
	Writer Writer
	// Keep, when set, is called once a response finished (completed or
	// incomplete), before the client can read its end, with what a
	// stored response keeps: a client may continue it the moment it
	// reads response.completed.
	Keep func(Finished)
}

// Finished is a finished response as it is kept (store: true).
type Finished struct {
	// Response is the response object (JSON).
	Response json.RawMessage
	// Messages are the turn's assistant side as chat messages: the
	// model's rounds as it wrote them, with tool calls and results.
	Messages []json.RawMessage
	// Items are the chat messages that stand for each output item, by
	// item id: what takes an item's place when a client sends it back as
	// input (an mcp_call or mcp_approval_request item) or names it in an
	// item_reference.
	Items map[string][]json.RawMessage
}

// Encoder turns a turn's events into a Responses API answer: the stream
// of response.* events, or one response object. It is the [loop.Out] of
// the route; one goroutine calls it, in order (see loop.Out).
//
// Output items follow the turn as it happened: reasoning, a message per
// stretch of text between tool activity, an mcp_call per server-tool call
// (display: events), a function_call per call of the client's own tools.
// A call that waits for a person shows first as an mcp_approval_request
// item, streamed only: a final output holding one would tell clients the
// response still waits for their approval, which the Agents SDK answers
// by failing the run; the mcp_call that follows carries its id in
// approval_request_id.
type Encoder struct {
	// Ignore takes what the Responses API has no form for: stop
	// sequences, chat chunks.
	loop.Ignore
	req   *Request
	opts  Options
	tools map[string]toolhost.Tool
	resp  Response

	seq int
	// digits writes the delta events' sequence numbers.
	digits         seqDigits
	started, ended bool
	// slots are the output items by output index, nil while open.
	slots []slot
	// text and think are the open message and reasoning items; spoke
	// says a message was opened before.
	text, think *textItem
	spoke       bool
	// fcalls are the client's calls by their index in the turn, in the
	// order they came (forder).
	fcalls map[int]*clientCall
	forder []int
	// mcp are the server calls by call id.
	mcp        map[string]*serverCall
	hosted     map[string]*hostedCall // hosted tools' calls by call id (hosted_out.go)
	finish     string
	transcript []json.RawMessage
	items      map[string][]json.RawMessage
	// parked are the approval requests of calls parked for the client's
	// decision, which end the response (mcpask_out.go); results are the
	// server calls' results as the model read them, by call id.
	parked  []approvalItem
	results map[string]json.RawMessage
	// buf is the event being written, from bufs while streaming and
	// given back whenever the turn flushes; released says the answer
	// ended, and an event after it (written to nothing) takes no pooled
	// buffer that nothing would give back.
	buf      *[]byte
	released bool
	// frames is the Writer when it takes frames; holds and flushes are
	// the Writer when it holds and flushes: found once, not on every
	// chunk's flush.
	frames frameWriter
	// respLines is 0 until framesResponse looked at the response, then 1
	// when it holds no line break, 2 when it does.
	respLines int8
	holds     interface{ Hold(bool) error }
	flushes   interface{ Flush() error }
}

// NewEncoder returns the encoder of r's response.
func NewEncoder(r *Request, opts Options) *Encoder {
	if opts.NewID == nil {
		opts.NewID = loop.NewID
	}
	// The maps of calls are made when a call comes: most answers have none.
	e := &Encoder{req: r, opts: opts, resp: newResponse(r, opts.ID, opts.Created), items: map[string][]json.RawMessage{}}
	if len(opts.Tools) > 0 {
		e.tools = make(map[string]toolhost.Tool, len(opts.Tools))
	}
	for _, t := range opts.Tools {
		e.tools[t.Name] = t
	}
	if opts.Writer != nil {
		e.frames, _ = opts.Writer.(frameWriter)
		e.holds, _ = opts.Writer.(interface{ Hold(bool) error })
		e.flushes, _ = opts.Writer.(interface{ Flush() error })
	}
	return e
}

// paragraph opens every message item after a response's first.
const paragraph = "\n\n"

// bufs are the encoders' event buffers: an answer's events are written
// by hand into one, which goes back once the answer ended. It grows to
// the answer's largest event, the response object at its end.
var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// release gives the event buffer back: the answer ended.
func (e *Encoder) release() {
	e.putBuf()
	e.released = true
}

// putBuf gives the event buffer back to bufs; the next event takes one
// again (event). Each event is written out of it before the next one is
// begun, so between events it holds nothing.
func (e *Encoder) putBuf() {
	if e.buf != nil && cap(*e.buf) <= 64<<10 {
		bufs.Put(e.buf)
	}
	e.buf = nil
}

// Text is visible assistant text: a delta of the open message, or of a
// new one after other output. A message is a stretch of text without the
// blank space around it — the line breaks a chat stream puts between
// the model's text and its tool calls separate nothing once each stretch
// is an item of its own — so leading blank space opens no item, and
// trailing blank space waits for the text after it; a stretch of blank
// space alone makes no item at all. A message after the first opens
// with a paragraph break instead, so the texts joined (output_text) read
// as the chat stream's one message does.
func (e *Encoder) Text(s string) error {
	if t := e.text; t != nil && t.held == "" {
		// The open message goes on, and nothing waits to go first: the
		// path of nearly every token, which ends in a letter or a mark
		// (see below) and so is sent whole.
		if n := len(s); n > 0 && s[n-1] > ' ' && s[n-1] < utf8.RuneSelf {
			t.add(s)
			return e.delta(textDelta, t.ref, s)
		}
	}
	if e.text == nil {
		if s = strings.TrimLeftFunc(s, unicode.IsSpace); s == "" {
			return nil
		}
	}
	if err := e.begin(); err != nil {
		return err
	}
	if err := e.closeThink(); err != nil {
		return err
	}
	if e.text == nil {
		t := e.newTextItem("msg_")
		e.text = t
		if err := e.openMessage(t); err != nil {
			return err
		}
		if e.spoke {
			// A paragraph break opens every message after the first:
			// SDKs' output_text joins the messages' texts with nothing,
			// and the blank space around them was not sent.
			t.held, t.lead = paragraph, paragraph
		}
		e.spoke = true
	}
	t := e.text
	body := s
	if n := len(s); n == 0 || s[n-1] <= ' ' || s[n-1] >= utf8.RuneSelf {
		// Only then can s end in blank space: most tokens end in a
		// letter or a mark.
		body = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	tail := s[len(body):]
	if body == "" {
		t.held += strings.Clone(tail) // s is only valid during the call
		return nil
	}
	if t.held != "" {
		body = t.held + body
	}
	t.held = strings.Clone(tail)
	t.add(body)
	return e.delta(textDelta, t.ref, body)
}

// Reasoning is the model's reasoning: a delta of the open reasoning item,
// or of a new one.
func (e *Encoder) Reasoning(s string) error {
	if err := e.begin(); err != nil {
		return err
	}
	if err := e.closeText(); err != nil {
		return err
	}
	if e.think == nil {
		t := e.newTextItem("rs_")
		e.think = t
		item := reasoningItem{ID: t.id, Type: "reasoning", Summary: []any{}, Content: []reasoningPart{}}
		if err := e.send(evItemAdded, &itemEvent{Type: evItemAdded, Seq: e.next(), OutputIndex: t.index, Item: item}); err != nil {
			return err
		}
		if err := e.send(evPartAdded, &partEvent{Type: evPartAdded, Seq: e.next(), ItemID: t.id, OutputIndex: t.index, Part: reasoningPart{Type: "reasoning_text"}}); err != nil {
			return err
		}
	}
	e.think.add(s)
	return e.delta(reasoningDelta, e.think.ref, s)
}

// ToolCall is a fragment of a call of the client's own tools: its first
// opens a function_call item, the others add to its arguments.
func (e *Encoder) ToolCall(f loop.ToolCallDelta) error {
	if err := e.begin(); err != nil {
		return err
	}
	c := e.fcalls[f.Index]
	if c == nil {
		if err := e.closeOpen(); err != nil {
			return err
		}
		c = e.newClientCall(f)
		if e.fcalls == nil {
			e.fcalls = map[int]*clientCall{}
		}
		e.fcalls[f.Index] = c
		e.forder = append(e.forder, f.Index)
		if err := e.send(evItemAdded, &itemEvent{Type: evItemAdded, Seq: e.next(), OutputIndex: c.index, Item: c.wireItem()}); err != nil {
			return err
		}
	}
	if f.Arguments == "" {
		return nil
	}
	c.args.WriteString(f.Arguments)
	if c.tool.kind != kindFunction {
		return nil // its input or arguments go whole at its end (closeCalls)
	}
	return e.delta(argsDelta, c.ref, f.Arguments)
}

// Finish is the turn's finish_reason: "length" and "content_filter" make
// the response incomplete.
func (e *Encoder) Finish(reason string) error {
	e.finish = reason
	return nil
}

// Usage is the turn's usage, summed over its rounds.
func (e *Encoder) Usage(u json.RawMessage) error {
	e.resp.Usage = usageOf(u)
	return nil
}

// Keepalive is an SSE comment: the client's connection is alive while a
// tool runs or an approval waits.
func (e *Encoder) Keepalive() error {
	if e.opts.Writer == nil {
		return nil
	}
	if err := e.begin(); err != nil {
		return err
	}
	return e.opts.Writer.Comment("keepalive")
}

// Transcript takes the turn's rounds as the model wrote them (see
// loop.Out.Transcript): the stored conversation continues from them.
func (e *Encoder) Transcript(msgs []json.RawMessage) { e.transcript = msgs }

// Takes asks for the turn as typed events, with its transcript; a
// response answered whole asks for no progress, of which its object keeps
// nothing.
func (e *Encoder) Takes() loop.Takes {
	return loop.Takes{Transcript: true, NoProgress: e.opts.Writer == nil}
}

// Done ends a turn that finished: the open items are closed, the response
// is kept (Options.Keep), and response.completed — or
// response.incomplete — ends the stream with the whole response.
func (e *Encoder) Done() error {
	if e.ended {
		return nil
	}
	if err := e.begin(); err != nil {
		return err
	}
	if err := e.closeOpen(); err != nil {
		return err
	}
	if err := e.closeCalls(); err != nil {
		return err
	}
	if err := e.closeParked(); err != nil {
		return err
	}
	e.ended = true
	typ := evCompleted
	e.resp.Status = StatusCompleted
	switch e.finish {
	case "length":
		typ, e.resp.Status = evIncomplete, StatusIncomplete
		e.resp.IncompleteDetails = &IncompleteDetails{Reason: "max_output_tokens"}
	case "content_filter":
		typ, e.resp.Status = evIncomplete, StatusIncomplete
		e.resp.IncompleteDetails = &IncompleteDetails{Reason: "content_filter"}
	}
	e.resp.Output = e.output()
	size := 1024 + 128
	for _, item := range e.resp.Output {
		size += len(item)
	}
	// The response object is written once, inside the event that
	// carries it, in a buffer of its own that no later event reuses: what
	// is kept is a view of it.
	seq := e.next()
	framed := e.opts.Writer != nil && e.framesResponse()
	b := make([]byte, 0, size)
	if framed {
		b = appendFrameHead(b, typ)
	}
	data := len(b)
	b = append(appendHead(b, typ, seq), `,"response":`...)
	start := len(b)
	b = e.resp.appendJSON(b)
	resp := b[start:len(b):len(b)]
	b = append(b, '}')
	if e.opts.Keep != nil {
		if err := e.keep(resp); err != nil {
			return err
		}
	}
	defer e.release()
	switch {
	case e.opts.Writer == nil:
		return nil
	case framed:
		return e.frames.WriteFrame(append(b, '\n', '\n'))
	}
	return e.opts.Writer.WriteEvent(typ, b[data:])
}

// Fail ends a stream that started with the turn's failure:
// response.failed, then an error event, and no response.completed — a
// cut response never looks complete. code is OpenAI's error code (or
// type) for it.
func (e *Encoder) Fail(code, message string) error {
	if e.ended {
		return nil
	}
	if err := e.begin(); err != nil {
		return err
	}
	e.ended = true
	e.resp.Status = StatusFailed
	e.resp.Error = &ResponseError{Code: code, Message: message}
	if err := e.cutOpen(); err != nil {
		return err
	}
	e.resp.Output = e.output()
	if err := e.sendResponse(evFailed); err != nil {
		return err
	}
	ev := &errorEvent{Type: evError, Seq: e.next(), Message: message}
	if code != "" {
		ev.Code = &code
	}
	defer e.release()
	return e.send(evError, ev)
}

// Response returns the response object as it stands: once Done was
// called, the whole answer of a request that did not stream.
func (e *Encoder) Response() ([]byte, error) {
	if !e.ended {
		e.resp.Output = e.output()
	}
	return e.resp.appendJSON(nil), nil
}

// Hold turns holding on or off, when the Writer holds.
func (e *Encoder) Hold(on bool) error {
	if e.holds != nil {
		return e.holds.Hold(on)
	}
	return nil
}

// Flush writes out what the Writer holds. The turn flushes before it
// waits: the event buffer goes back to bufs then, so that an open stream
// waiting for its upstream holds none.
func (e *Encoder) Flush() error {
	e.putBuf()
	if e.flushes != nil {
		return e.flushes.Flush()
	}
	return nil
}

var _ loop.Out = (*Encoder)(nil)
