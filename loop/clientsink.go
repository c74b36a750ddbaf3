package loop

import (
	"encoding/json"
	"fmt"
)

// clientSink is the turn's way to the client. Every write goes through it,
// so it knows when the stream was last written to (keepalives fill only
// silence) and whether anything reached the client yet (before that, an
// error can still become an HTTP status); and a write that fails is marked
// [ErrClientGone] here, once, rather than by every caller.
type clientSink struct {
	out Out
	// takes is out's Takes, asked once.
	takes Takes
	// wrote is set by every write; a keepalive that falls due clears it.
	// committed is set once anything reached the client.
	wrote, committed bool
}

func newClientSink(out Out) clientSink {
	return clientSink{out: out, takes: out.Takes()}
}

// chunks says the client reads chat chunks (Raw), not typed events.
func (c *clientSink) chunks() bool { return c.takes.Chunks }

// metas says the Out takes Meta.
func (c *clientSink) metas() bool { return c.takes.Meta }

// meta tells the Out what a chunk said that no typed event carries; it
// writes nothing.
func (c *clientSink) meta(m Meta) { c.out.Meta(m) }

// mark notes a write to the client that had nothing in it for the Out.
func (c *clientSink) mark() { c.wrote, c.committed = true, true }

// sent marks a write to the client and wraps its error.
func (c *clientSink) sent(err error) error {
	c.wrote, c.committed = true, true
	return gone(err)
}

// begin and opened write nothing: they tell the Out what its own chunks
// need.
func (c *clientSink) begin(b Begin) { c.out.Begin(b) }
func (c *clientSink) opened()       { c.out.Opened() }

func (c *clientSink) raw(b []byte) error             { return c.sent(c.out.Raw(b)) }
func (c *clientSink) text(t string) error            { return c.sent(c.out.Text(t)) }
func (c *clientSink) reasoning(t string) error       { return c.sent(c.out.Reasoning(t)) }
func (c *clientSink) toolCall(f ToolCallDelta) error { return c.sent(c.out.ToolCall(f)) }
func (c *clientSink) event(ev *Event) error          { return c.sent(c.out.Event(ev)) }
func (c *clientSink) stopSequence(s string) error    { return c.sent(c.out.StopSequence(s)) }
func (c *clientSink) finish(reason string) error     { return c.sent(c.out.Finish(reason)) }
func (c *clientSink) usage(u json.RawMessage) error  { return c.sent(c.out.Usage(u)) }
func (c *clientSink) keepalive() error               { return c.sent(c.out.Keepalive()) }

func (c *clientSink) done() error {
	c.wrote = true
	return gone(c.out.Done())
}

// hold turns the Out's holding on or off.
func (c *clientSink) hold(on bool) { c.out.Hold(on) }

// flush writes out what the Out holds. An error is the client gone; the
// next write reports it.
func (c *clientSink) flush() { c.out.Flush() }

func gone(err error) error {
	if err != nil {
		return fmt.Errorf("%w: %w", ErrClientGone, err)
	}
	return nil
}
