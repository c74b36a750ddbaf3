package loop

import (
	"encoding/json"

	"github.com/valyala/fastjson"
)

// EventSink receives a turn as typed events instead of chat chunks: the
// encoders of the other client protocols (Responses, Messages) implement
// it. The turn runs the same either way — one chunk path, the upstream's
// chunks parsed once — and a sink of either kind reads what the client
// would see: text without markup, the client's own tool calls, toolstream's
// events, one finish, the turn's usage. Calls come from one goroutine, in
// order. An error ends the turn as a client gone ([ErrClientGone]). An
// EventSink that also has [Batcher]'s Hold and Flush is held and flushed
// as a chat stream is; one that is a [Transcriber] also gets the turn's
// rounds.
type EventSink interface {
	// Text is visible assistant text. text is valid only during the call,
	// like a Sink's chunk: it is read in place from the parsed chunk, and a
	// sink that keeps any of it copies it.
	Text(text string) error
	// Reasoning is the model's reasoning (reasoning_content, reasoning, or
	// an implicit <think> split off), valid only during the call as
	// Text's is.
	Reasoning(text string) error
	// ToolCall is a fragment of a call of one of the client's own tools,
	// as a chat stream carries it: the first fragment of a call has its
	// ID and Name, later ones add to Arguments.
	ToolCall(f ToolCallDelta) error
	// Event is tool activity: tool.started, tool.finished (with the whole
	// result in Event.Full), approval.requested, approval.resolved,
	// round.started, mode.fallback, upstream.fallback. Only with display:
	// events.
	Event(ev *Event) error
	// Finish is the turn's finish_reason, once.
	Finish(reason string) error
	// Usage is the turn's usage, summed over its rounds (its raw JSON, as
	// the upstream named the fields), when the upstream reported any.
	Usage(u json.RawMessage) error
	// Keepalive says the turn is alive but has had nothing to send for
	// loop.keepalive.
	Keepalive() error
	// Done ends a turn that finished.
	Done() error
}

// StopSequencer is an [EventSink] that also hears which of the client's
// stop sequences ended the answer, when the upstream names it (vLLM's
// choices say it in "stop_reason", SGLang's in "matched_stop"); chat
// completions have no field for it. It is told before Finish.
type StopSequencer interface {
	StopSequence(s string) error
}

// Transcriber is an [EventSink] that also keeps a turn as the upstream
// must read it again: a client protocol that stores conversations (the
// Responses API's previous_response_id) continues one from the model's
// own rounds — its text as written, tool markup or native calls included,
// and every server result — not from what the client was shown.
type Transcriber interface {
	// Transcript is called once, before Done, when a turn with tools
	// finished: msgs are its assistant side as chat messages (JSON), the
	// messages history stitching stores. A turn without tools has none:
	// what the client read is what the model wrote. msgs are the sink's
	// to keep.
	Transcript(msgs []json.RawMessage)
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

// Events returns the Sink to run a turn with for a client that reads it as
// events.
func Events(out EventSink) Sink {
	h, _ := out.(holder)
	return &eventSink{out: out, holds: h}
}

// eventSink adapts an [EventSink] to the chunk path: the turn sends it
// chunks, parsed ones where it has them ([valueSink]), and it hands their
// parts on as events. Events the turn makes itself go to it directly
// (turnRun.event), never through JSON.
type eventSink struct {
	out EventSink
	// holds is out when it holds (see holder): found once, not on every
	// chunk's flush.
	holds holder
	p     fastjson.Parser
	rp    fastjson.Parser // for values set as raw JSON
	raw   []byte
	// found is what find found of the chunk being sent.
	found parts
}

func (e *eventSink) Send(b []byte) error {
	v, err := e.p.ParseBytes(b)
	if err != nil {
		return err
	}
	return e.sendValue(v, nil)
}

func (e *eventSink) Comment(string) error { return e.out.Keepalive() }

func (e *eventSink) Done() error { return e.out.Done() }

// holder is an EventSink that writes to a [Batcher] (a streaming
// encoder): the turn's holding and flushing reach the writer through it,
// so events read together leave in one write for these clients too.
type holder interface {
	Hold(on bool) error
	Flush() error
}

// Hold turns holding on or off when the EventSink can hold.
func (e *eventSink) Hold(on bool) error {
	if e.holds != nil {
		return e.holds.Hold(on)
	}
	return nil
}

// Flush writes out what the EventSink holds, when it can hold.
func (e *eventSink) Flush() error {
	if e.holds != nil {
		return e.holds.Flush()
	}
	return nil
}

// sendValue hands one chunk's parts to the sink in the order a reader of
// the chunk meets them: reasoning, text, tool calls, finish, usage. p is
// what the turn found of the chunk on its way (see [parts]); without it,
// the chunk is searched here.
//
// Every chunk of the turn comes this way, so text and reasoning go out as
// views of the parsed chunk (see [EventSink.Text]), not as a copy each,
// and the delta — whose fields looked for are mostly missing, and a
// search for a missing field reads the object again — is walked once for
// the fields it has.
func (e *eventSink) sendValue(v *fastjson.Value, p *parts) error {
	if p == nil {
		p = e.find(v)
	}
	if p.c0 != nil {
		if err := e.choice(p); err != nil {
			return err
		}
	}
	if p.usage == nil {
		return nil
	}
	if u := e.resolve(p.usage); u != nil && u.Type() == fastjson.TypeObject {
		return e.out.Usage(json.RawMessage(u.MarshalTo(nil)))
	}
	return nil
}

// find searches chunk v for what [parts] holds, into e.found: for the
// chunks the turn sends without looking into them (held ones, its own).
func (e *eventSink) find(v *fastjson.Value) *parts {
	p := &e.found
	*p = parts{usage: v.Get("usage")}
	if c := v.GetArray("choices"); len(c) > 0 {
		p.c0 = c[0]
		if d := p.c0.Get("delta"); d != nil && d.Type() == fastjson.TypeObject {
			p.delta = d
		}
		if f := p.c0.GetStringBytes("finish_reason"); len(f) > 0 {
			p.finish = string(f)
		}
	}
	return p
}

// visit calls f for each field of object v, in order; a v that is no
// object has none.
func visit(v *fastjson.Value, f func(k []byte, v *fastjson.Value)) {
	if o, err := v.Object(); err == nil {
		o.Visit(f)
	}
}

// first keeps the first of a field that is there twice, as a search
// finds it.
func first(had, v *fastjson.Value) *fastjson.Value {
	if had != nil {
		return had
	}
	return v
}

func (e *eventSink) choice(p *parts) error {
	if delta := p.delta; delta != nil {
		var rc, r, content, tcs *fastjson.Value
		visit(delta, func(k []byte, f *fastjson.Value) {
			switch string(k) {
			case "reasoning_content":
				rc = first(rc, f)
			case "reasoning":
				r = first(r, f)
			case "content":
				content = first(content, f)
			case "tool_calls":
				tcs = first(tcs, f)
			}
		})
		// Most fields looked for are missing: nil is tested here, not in
		// a call for each, and most chunks have no reasoning at all.
		if rc != nil || r != nil {
			for _, s := range [...]*fastjson.Value{rc, r} {
				if s == nil {
					continue
				}
				if t := e.text(s); t != "" {
					if err := e.out.Reasoning(t); err != nil {
						return err
					}
				}
			}
		}
		t := p.text
		if !p.read && content != nil {
			t = e.text(content)
		}
		if t != "" {
			if err := e.out.Text(t); err != nil {
				return err
			}
		}
		if tcs != nil {
			tcs = e.resolve(tcs)
		}
		if tcs != nil && tcs.Type() == fastjson.TypeArray {
			for _, tc := range tcs.GetArray() {
				f := ToolCallDelta{
					Index:     tc.GetInt("index"),
					ID:        string(tc.GetStringBytes("id")),
					Name:      string(tc.GetStringBytes("function", "name")),
					Arguments: string(tc.GetStringBytes("function", "arguments")),
				}
				if err := e.out.ToolCall(f); err != nil {
					return err
				}
			}
		}
	}
	if p.finish != "" {
		if err := e.stopSequence(p.c0, p.finish); err != nil {
			return err
		}
		return e.out.Finish(p.finish)
	}
	return nil
}

// text is the string v holds, resolved, as a view of the parsed chunk
// valid until the next one; "" when v is no string. v is not nil: the
// callers test that, most fields being missing.
func (e *eventSink) text(v *fastjson.Value) string {
	b, err := v.StringBytes()
	if err != nil {
		// Not a string as it stands: it may be one the turn set as raw
		// JSON.
		if v.Type() != fastjson.TypeNumber {
			return ""
		}
		if v = e.resolveRaw(v); v == nil {
			return ""
		}
		if b, err = v.StringBytes(); err != nil {
			return ""
		}
	}
	return b2s(b)
}

// stopSequence tells a [StopSequencer] the stop sequence the upstream
// named for an answer that finished with "stop". A number there is a stop
// token's id, not a sequence the client sent.
func (e *eventSink) stopSequence(c0 *fastjson.Value, finish string) error {
	ss, ok := e.out.(StopSequencer)
	if !ok || finish != "stop" {
		return nil
	}
	for _, k := range [...]string{"stop_reason", "matched_stop"} {
		if v := e.resolve(c0.Get(k)); v != nil && v.Type() == fastjson.TypeString && len(v.GetStringBytes()) > 0 {
			return ss.StopSequence(string(v.GetStringBytes()))
		}
	}
	return nil
}

// resolve reads a value the turn set as raw JSON ([rawValue], which looks
// like a number) as the value it encodes; others are returned as they are.
// What it returns is valid until the next call.
func (e *eventSink) resolve(v *fastjson.Value) *fastjson.Value {
	if v == nil || v.Type() != fastjson.TypeNumber {
		return v
	}
	return e.resolveRaw(v)
}

// resolveRaw is resolve for a v that is a number, which may be raw JSON
// the turn set: apart, so that text, which meets such a v only where the
// turn edited a chunk, calls it only then.
func (e *eventSink) resolveRaw(v *fastjson.Value) *fastjson.Value {
	e.raw = v.MarshalTo(e.raw[:0])
	if len(e.raw) == 0 || e.raw[0] != '"' && e.raw[0] != '[' && e.raw[0] != '{' {
		return v // a number
	}
	r, err := e.rp.ParseBytes(e.raw)
	if err != nil {
		return nil
	}
	return r
}

var (
	_ Batcher   = (*eventSink)(nil)
	_ valueSink = (*eventSink)(nil)
)
