package loop

// Sink receives what the client sees of a turn. proxy implements it over
// SSE; [Collector] gathers a non-streaming answer. Sends happen from one
// goroutine, in order.
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
