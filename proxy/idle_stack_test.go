package proxy_test

import (
	"testing"
)

// TestIdleStreamStack holds streams open after their first chunk, as
// BenchmarkIdleStreamMemory does, and checks that each one's handler
// still has the 8 KiB stack a goroutine starts with: a stack that grows
// past it once (a dial, the response's head, a fat frame on the chunk
// path) is 16 KiB for as long as the stream stays open. Two goroutines a
// stream: the handler's 8 KiB and net/http's connection reader's 2 KiB.
func TestIdleStreamStack(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation deepens every frame")
	}
	const n = 40
	for _, c := range idleRoutes {
		t.Run(c.name, func(t *testing.T) {
			before, after := openIdle(t, n, c.path, c.body, c.text)
			// 12 KiB: 10 and some slack for the runtime's own goroutines;
			// one grown handler stack makes it 18.
			if per := (after.stack - before.stack) / n; per > 12<<10 {
				t.Errorf("%d B of stack per open stream, want at most %d", per, 12<<10)
			}
		})
	}
}
