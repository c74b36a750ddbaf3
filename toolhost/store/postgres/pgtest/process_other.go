//go:build !linux

package pgtest

// credential is unused off Linux.
type credential struct{ uid, gid uint32 }

// start is Linux-only: elsewhere the tests skip as without binaries.
func (c *Cluster) start(string) error { return ErrNoBinaries }

// Kill and Restart are Linux-only, like start.
func (c *Cluster) Kill() error    { return ErrNoBinaries }
func (c *Cluster) Restart() error { return ErrNoBinaries }
