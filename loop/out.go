package loop

import "encoding/json"

// Out is where a turn goes: loop's only output. The turn hands it typed
// events — text, reasoning, the client's tool calls, toolstream's events,
// one finish, the turn's usage — and each client protocol's encoder writes
// them in its own shape (proxy/chat, proxy/responses, proxy/messages). An
// encoder that has no use for an event ignores it: embed [Ignore] and
// write only the methods wanted.
//
// Chat is the one protocol whose wire is the upstream's own: an Out whose
// [Takes] has Chunks set gets the upstream's chunks through Raw instead
// of the typed events read from them — a chunk the turn did not change
// byte for byte, the others as the turn edited them — and the turn's own
// output (text it writes itself, reasoning the think split still held,
// client calls found in text, toolstream's events, a finish it decided)
// as typed events, from which it builds chunks of its own (see Begin and
// Opened).
//
// Calls come from one goroutine, in order. An error ends the turn as a
// client gone ([ErrClientGone]).
type Out interface {
	// Takes says how the Out reads the turn; it is asked once, at the
	// turn's start.
	Takes() Takes
	// Begin gives the turn's id and created time and the model the client
	// named, once, before anything the turn writes itself: an Out that
	// builds chat chunks puts them on each. An Out of typed events has no
	// use for it.
	Begin(b Begin)
	// Raw is one complete chat.completion.chunk JSON object, only for an
	// Out that takes chunks. The slice is valid only during the call. It
	// comes with the turn's edits made (envelope, role, content, calls,
	// summed usage): the turn holds the chunk parsed, so the Out need not
	// parse it again.
	Raw(chunk []byte) error
	// Opened says an upstream chunk opened the answer: it carries the
	// role, which goes on the answer's first delta only, so no chunk the
	// Out builds after it may. Only for an Out that takes chunks.
	Opened()
	// Text is visible assistant text. text is valid only during the call:
	// it is read in place from the parsed chunk, and an Out that keeps any
	// of it copies it.
	Text(text string) error
	// Reasoning is the model's reasoning (reasoning_content, reasoning, or
	// an implicit <think> split off), valid only during the call as
	// Text's is.
	Reasoning(text string) error
	// ToolCall is a fragment of a call of one of the client's own tools,
	// as a chat stream carries it: the first fragment of a call has its
	// ID and Name, later ones add to Arguments.
	ToolCall(f ToolCallDelta) error
	// Event is tool activity: tool.started, tool.progress, tool.finished
	// (with the whole result in Event.Full), approval.requested,
	// approval.resolved, round.started, mode.fallback, upstream.fallback.
	// Only with display: events.
	Event(ev *Event) error
	// StopSequence is the client's stop sequence that ended the answer,
	// when the upstream names it (vLLM's choices say it in "stop_reason",
	// SGLang's in "matched_stop"); it comes before Finish.
	StopSequence(s string) error
	// Finish is the turn's finish_reason, once.
	Finish(reason string) error
	// Usage is the turn's usage, summed over its rounds (its raw JSON, as
	// the upstream named the fields), when the upstream reported any.
	Usage(u json.RawMessage) error
	// Keepalive says the turn is alive but has had nothing to send for
	// loop.keepalive.
	Keepalive() error
	// Transcript is called once, before Done, when a turn with tools
	// finished and [Takes] asked for it: msgs are its assistant side as
	// chat messages (JSON), the messages history stitching stores — the
	// model's own rounds, tool markup or native calls included, and every
	// server result. A protocol that stores conversations (the Responses
	// API's previous_response_id) continues one from them. msgs are the
	// Out's to keep.
	Transcript(msgs []json.RawMessage)
	// Meta is what a chunk of the upstream's said that no typed event
	// carries, only for an Out whose [Takes] has Meta set; it comes before
	// the chunk's typed events. It writes nothing.
	Meta(m Meta)
	// Hold turns holding on or off: while on, what is written may wait to
	// be flushed, so that events which arrived from the upstream together
	// leave in one write. The turn holds only while it forwards events it
	// already has, and flushes before it waits for anything. Turning it
	// off flushes.
	Hold(on bool) error
	// Flush writes out what is held.
	Flush() error
	// Done ends a turn that finished.
	Done() error
}

// Takes is how an [Out] reads a turn.
type Takes struct {
	// Chunks: the upstream's chunks through Raw, not as typed events
	// (chat's own wire); the turn's own output still comes typed.
	Chunks bool
	// NoProgress: no tool.progress events, and no timers to throttle
	// them — an answer collected whole, whose reader never watched it
	// move.
	NoProgress bool
	// Transcript: the turn's rounds as the upstream must read them again
	// (see Out.Transcript).
	Transcript bool
	// Meta: what the upstream's chunks said that only chat's collected
	// answer keeps, through Out.Meta (see [Meta]); and Begin even when
	// the turn writes before any chunk came. It costs the turn one field
	// search per chunk, so only chat's Collector asks for it.
	Meta bool
}

// Meta is what one upstream chunk said, as the client would have read it,
// that no typed event carries: facts only chat's wire has.
type Meta struct {
	// Fingerprint is the chunk's system_fingerprint, "" when it has none
	// (Azure's first chunk has none).
	Fingerprint string
	// Content says the delta has content, a string, though perhaps an
	// empty one: a chat answer's content is then "", not null.
	Content bool
	// ReasoningContent says the delta has reasoning_content, a string,
	// though perhaps an empty one; its text comes through Out.Reasoning.
	ReasoningContent bool
	// Reasoning says the delta has a "reasoning" field, a string, and
	// ReasoningText is it: to an Out that takes Meta that text comes here,
	// not through Out.Reasoning, since chat's answer keeps the two fields
	// apart. ReasoningText is valid only during the call, as Text's is.
	Reasoning     bool
	ReasoningText string
}

// Begin is a turn's identity on chat's wire.
type Begin struct {
	// ID and Created are the upstream's first chunk's, or the turn's own
	// when it writes before any chunk came.
	ID      string
	Created int64
	// Model is the model the client named.
	Model string
}

// ToolCallDelta is one fragment of a client tool call.
type ToolCallDelta struct {
	// Index is the call's place among the turn's client calls, from 0.
	Index int
	// ID and Name are set on a call's first fragment.
	ID, Name string
	// Arguments is the next piece of the call's arguments (JSON text).
	Arguments string
}

// Ignore is an [Out] that ignores everything and takes typed events: an
// encoder embeds it and writes the methods of the events it wants.
type Ignore struct{}

func (Ignore) Takes() Takes                 { return Takes{} }
func (Ignore) Begin(Begin)                  {}
func (Ignore) Raw([]byte) error             { return nil }
func (Ignore) Opened()                      {}
func (Ignore) Text(string) error            { return nil }
func (Ignore) Reasoning(string) error       { return nil }
func (Ignore) ToolCall(ToolCallDelta) error { return nil }
func (Ignore) Event(*Event) error           { return nil }
func (Ignore) StopSequence(string) error    { return nil }
func (Ignore) Finish(string) error          { return nil }
func (Ignore) Usage(json.RawMessage) error  { return nil }
func (Ignore) Keepalive() error             { return nil }
func (Ignore) Transcript([]json.RawMessage) {}
func (Ignore) Meta(Meta)                    {}
func (Ignore) Hold(bool) error              { return nil }
func (Ignore) Flush() error                 { return nil }
func (Ignore) Done() error                  { return nil }

var _ Out = Ignore{}
