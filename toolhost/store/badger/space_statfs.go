//go:build linux || darwin || freebsd

package badger

import "syscall"

// freeBytes is the space an unprivileged writer may still use on the
// filesystem holding path (statfs's f_bavail: ext4 keeps its reserved
// blocks for root, and badger's writes must not count on them).
func freeBytes(path string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}
