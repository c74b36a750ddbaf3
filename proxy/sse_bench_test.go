package proxy

import (
	"testing"
	"time"
)

// BenchmarkSSESinkHeldRun is the client side of a stream whose upstream
// chunks come faster than one read each: the sink holds a run of events
// (8 of a Messages text delta's size) and flushes them together before
// the turn waits again, as the turn route does with every upstream that
// can be waited on. One op is one event.
func BenchmarkSSESinkHeldRun(b *testing.B) {
	frame := []byte(`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"w12 xxxxxxxxxxxx"}}` + "\n\n")
	w := &discardWriter{h: make(map[string][]string)}
	sink, err := newSSESink(w, 2*time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	if err := sink.Hold(true); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := sink.WriteFrame(frame); err != nil {
			b.Fatal(err)
		}
		if i++; i%8 == 0 {
			if err := sink.Flush(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
