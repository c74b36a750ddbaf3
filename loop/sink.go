package loop

import (
	"fmt"

	"github.com/valyala/fastjson"
)

// Sink receives what the client sees of a turn as chat chunks. proxy
// implements it over SSE; [Collector] gathers a non-streaming answer.
// Sends happen from one goroutine, in order. [Events] makes a Sink of an
// [EventSink], which gets the turn as typed events instead.
type Sink interface {
	// Send delivers one complete chat.completion.chunk JSON object. The
	// slice is only valid during the call.
	Send(chunk []byte) error
	// Comment delivers an SSE comment such as "keepalive"; clients ignore
	// it, intermediaries see the connection is alive.
	Comment(text string) error
	// Done ends a turn that finished: "data: [DONE]".
	Done() error
}

// Batcher is a Sink that can hold what it is sent until it is flushed, so
// that events which arrived from the upstream together leave in one write
// instead of a write and a flush each. The loop turns holding on only
// while it forwards events it already has, and flushes before it waits for
// anything — the upstream, a tool, a person, a tick — so no event ever
// waits for another.
type Batcher interface {
	Sink
	// Hold turns holding on or off; turning it off flushes what is held.
	Hold(on bool) error
	// Flush writes out what is held.
	Flush() error
}

// clientSink is the turn's way to the client. Every write goes through it,
// so it knows when the stream was last written to (keepalives fill only
// silence) and whether anything reached the client yet (before that, an
// error can still become an HTTP status); and a write that fails is marked
// [ErrClientGone] here, once, rather than by every caller.
type clientSink struct {
	out Sink
	// values is out when it takes chunks already parsed.
	values valueSink
	// events is the EventSink behind out, when the client reads events.
	events EventSink
	// wrote is set by every write; the keepalive timer clears it.
	// committed is set once anything reached the client.
	wrote, committed bool
}

func (c *clientSink) Send(b []byte) error {
	c.wrote, c.committed = true, true
	return gone(c.out.Send(b))
}

// sendValue hands the parsed chunk v, and what the turn found of it when
// p is set, to a sink that takes values.
func (c *clientSink) sendValue(v *fastjson.Value, p *parts) error {
	c.wrote, c.committed = true, true
	return gone(c.values.sendValue(v, p))
}

func (c *clientSink) Comment(text string) error {
	c.wrote, c.committed = true, true
	return gone(c.out.Comment(text))
}

func (c *clientSink) Done() error {
	c.wrote = true
	return gone(c.out.Done())
}

// hold turns the underlying sink's holding on or off, when it can hold.
func (c *clientSink) hold(on bool) {
	if b, ok := c.out.(Batcher); ok {
		b.Hold(on)
	}
}

// flush writes out what the underlying sink holds. An error is the client
// gone; the next write reports it.
func (c *clientSink) flush() {
	if b, ok := c.out.(Batcher); ok {
		b.Flush()
	}
}

// valueSink is a Sink that takes the upstream's chunks as the turn parsed
// and edited them: the [Collector], which would otherwise parse every
// chunk a second time. Values the turn set are raw JSON (see [rawValue]),
// which it reads as such.
type valueSink interface {
	sendValue(v *fastjson.Value, p *parts) error
}

// parts is what the turn found of a chunk on its way to the client, as the
// client will read it: a sink that hands chunks on as events takes the
// choice, delta, finish and usage from here rather than searching the
// chunk for them again, on every token. The values are the chunk's, as
// edited.
type parts struct {
	// c0 is the first choice, nil when there is none; delta is its
	// delta, nil when that is no object.
	c0, delta *fastjson.Value
	// finish is c0's finish_reason as it goes out, "" when none.
	finish string
	// usage is the chunk's usage object, nil when it has none.
	usage *fastjson.Value
	// text is the delta's content as it goes out, when read says the
	// turn read it: what it wrote back is then no second parse away.
	text string
	read bool
}

func newClientSink(out Sink) clientSink {
	if a, ok := out.(*eventSink); ok {
		return clientSink{out: a, values: a, events: a.out}
	}
	vs, _ := out.(valueSink)
	return clientSink{out: out, values: vs}
}

// sendEvent hands ev to an EventSink as it is.
func (c *clientSink) sendEvent(ev *Event) error {
	c.wrote, c.committed = true, true
	return gone(c.events.Event(ev))
}

func gone(err error) error {
	if err != nil {
		return fmt.Errorf("%w: %w", ErrClientGone, err)
	}
	return nil
}
