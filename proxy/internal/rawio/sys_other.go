//go:build unix && !linux

package rawio

import "syscall"

// Off Linux the calls are the syscall package's; what Socket adds is
// only that it reads and writes through the poller the same way.

var forceRaw bool

func read(fd uintptr, p []byte) (int, syscall.Errno)  { return stdRead(fd, p) }
func write(fd uintptr, p []byte) (int, syscall.Errno) { return stdWrite(fd, p) }
func peek(fd uintptr, p []byte) (int, syscall.Errno)  { return stdPeek(fd, p) }
