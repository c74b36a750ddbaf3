//go:build !unix

package h1

// Ready returns at once: off unix the connection's Read waits, with the
// caller's buffer.
func (b *Body) Ready(p []byte, park func()) {}

// read is a body's read of the connection.
func (pc *pconn) read(p []byte) (int, error) { return pc.c.Read(p) }
