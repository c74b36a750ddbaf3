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
