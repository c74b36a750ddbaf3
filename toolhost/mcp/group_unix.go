//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// A stdio server is often a launcher (npx, uvx, a shell script) whose real
// server is a child of its own. Stopping the launcher would leave that
// child running, holding its pipes and resources, once per restart. So the
// server runs in a process group of its own, and the whole group is
// killed once the session is over.

// ownGroup makes cmd the leader of a new process group.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills what is left of cmd's process group. The leader itself
// has been waited for by then; the group id stays valid while any member
// lives, and a group with none left is simply not found.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
