//go:build !unix

package mcp

import "os/exec"

// Without process groups, a stdio server's own children are its to stop.
func ownGroup(*exec.Cmd)  {}
func killGroup(*exec.Cmd) {}
