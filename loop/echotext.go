package loop

import "strings"

// echoText accumulates text that mostly repeats the bytes of another
// builder, src: what the client read of a round is, until markup is taken
// out or a card goes in, the model's text as written. While every write
// repeats src's next bytes it keeps only where in src it lies; it copies
// them into a builder of its own the first time a write differs. A turn
// of prose kept three growing copies of the same text per round (the
// text, the round's visible text and the turn's), about 6 KiB of
// allocation per stream of 1 KiB of content, two of them this way
// (BenchmarkRouteStreamText).
//
// What String returns is always every write in order; src only ever
// grows, so a view of its bytes stays theirs.
type echoText struct {
	src *strings.Builder
	// from and n say the text so far is src's [from, from+n), while owned
	// is false.
	from, n int
	own     strings.Builder
	owned   bool
}

// WriteString appends s.
func (e *echoText) WriteString(s string) {
	if !e.owned {
		if e.src != nil && strings.HasPrefix(e.src.String()[e.from+e.n:], s) {
			e.n += len(s)
			return
		}
		e.keep()
	}
	e.own.WriteString(s)
}

// writeLast appends s, which the caller knows to be the last len(s)
// bytes src was given: when e had caught up with src before them, it
// repeats them without comparing.
func (e *echoText) writeLast(s string) {
	if !e.owned && e.src != nil && e.from+e.n+len(s) == e.src.Len() {
		e.n += len(s)
		return
	}
	e.WriteString(s)
}

// String returns the text written so far.
func (e *echoText) String() string {
	if e.owned {
		return e.own.String()
	}
	if e.src == nil {
		return ""
	}
	return e.src.String()[e.from : e.from+e.n]
}

// follow makes src the text later writes are expected to repeat, from
// its end on: a new round's text. What repeated the last one is copied
// first.
func (e *echoText) follow(src *strings.Builder) {
	if e.owned {
		return
	}
	if e.n > 0 {
		e.keep()
		return
	}
	e.src, e.from = src, src.Len()
}

// keep copies the text so far into e's own builder, which every later
// write goes to.
func (e *echoText) keep() {
	e.own.WriteString(e.String())
	e.owned, e.src = true, nil
}
