package proxy

import (
	"strings"
	"testing"
	"time"
)

// TestSinkHeadOneWrite: a held run of events that overflows what net/http
// keeps back before the head (a Responses stream's response.created and
// response.in_progress, a copy of the response object each) reaches the
// connection in one write, with the head, when the run is flushed: not
// in one write for the head and the events before the overflow and
// another for the rest.
func TestSinkHeadOneWrite(t *testing.T) {
	frame := "event: response.created\ndata: " + strings.Repeat("x", 900) + "\n\n"
	frames := repeat(frame, 3) // 2.8 KiB: over net/http's 2 KiB, under its connection's 4 KiB buffer
	log := sinkLog(t, true, frames, 0, time.Minute)
	writes := 0
	for _, e := range log {
		if e == "end" {
			break
		}
		if e == "write" {
			writes++
		}
	}
	if writes != 1 {
		t.Errorf("head and events reached the connection in %d writes, want 1: %v", writes, log)
	}
}
