//go:build !unix

package h1

// Ready returns at once: off unix the connection's Read waits, with the
// caller's buffer.
func (b *Body) Ready(p []byte, park func()) {}
