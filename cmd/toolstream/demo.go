package main

import (
	"fmt"
	"io"
)

// demo runs the scripted conversation (issue #3 builds it).
func demo(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "toolstream demo: not built yet; run `toolstream serve -config config.example.yaml`")
	return exitFail
}
