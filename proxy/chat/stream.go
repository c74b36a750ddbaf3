package chat

import "github.com/toolstream/toolstream/loop"

// Stream is a streamed chat answer: the upstream's chunks as the turn
// passes them and chunks of its own for the turn's own output, written to
// w as SSE data events as they come, keepalives as SSE comments, and
// [DONE].
type Stream struct {
	// Ignore takes the events a chat stream has no use for: the usage and
	// the stop sequence travel in the upstream's chunks.
	loop.Ignore
	w Writer

	// begin is the turn's identity, for the chunks the Stream builds;
	// roleSent says the answer's first delta went out (see ownchunks.go).
	begin    loop.Begin
	roleSent bool
	buf      []byte
}

// Writer is the stream a chat answer is written to: proxy's SSE writer.
// Writes happen from one goroutine, in order.
type Writer interface {
	// Send delivers one complete chat.completion.chunk JSON object. The
	// slice is only valid during the call.
	Send(chunk []byte) error
	// Comment delivers an SSE comment such as "keepalive"; clients ignore
	// it, intermediaries see the connection is alive.
	Comment(text string) error
	// Done ends a turn that finished: "data: [DONE]".
	Done() error
	// Hold turns holding on or off: what is sent while on waits for a
	// flush, so that events which arrived from the upstream together
	// leave in one write instead of a write and a flush each. Turning it
	// off flushes what is held.
	Hold(on bool) error
	// Flush writes out what is held.
	Flush() error
}

// NewStream returns the Out of a streamed chat answer written to w.
func NewStream(w Writer) *Stream { return &Stream{w: w} }

// Takes asks for the turn as chat chunks.
func (s *Stream) Takes() loop.Takes { return loop.Takes{Chunks: true} }

// Raw writes one chunk.
func (s *Stream) Raw(chunk []byte) error { return s.w.Send(chunk) }

// Keepalive writes ": keepalive": clients ignore it, intermediaries see
// the connection is alive.
func (s *Stream) Keepalive() error { return s.w.Comment("keepalive") }

// Hold turns the writer's holding on or off.
func (s *Stream) Hold(on bool) error { return s.w.Hold(on) }

// Flush writes out what the writer holds.
func (s *Stream) Flush() error { return s.w.Flush() }

// Done writes "data: [DONE]".
func (s *Stream) Done() error { return s.w.Done() }

var _ loop.Out = (*Stream)(nil)
