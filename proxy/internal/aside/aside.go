// Package aside runs deep work on a goroutine of its own while its caller
// waits, so that the caller's stack stays small.
//
// A stream's handler starts with the 8 KiB stack every goroutine starts
// with, and keeps whatever it grows to for as long as the stream is open
// (the runtime halves a stack only when under a quarter of it is in use,
// and a stream waiting on its upstream sits deeper than that). A few
// things a stream does once run far deeper than its per-chunk path: net's
// dial, net/http writing a response's head (one 2.8 KiB frame), a
// storage's read-modify-write. Reached from deep in a turn, each would
// double the stack to 16 KiB, for the stream and for every later stream on
// its keep-alive connection. Run on a goroutine of their own, they grow
// and free that goroutine's stack instead (BenchmarkIdleStreamMemory, in
// proxy).
package aside

// Do runs f on a goroutine of its own and returns when f has. Nothing runs
// on two goroutines at once: the caller only waits. A panic in f is the
// caller's again.
func Do(f func()) {
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		f()
	}()
	if p := <-done; p != nil {
		panic(p)
	}
}
