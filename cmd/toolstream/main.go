// Command toolstream is a drop-in OpenAI-compatible proxy that runs server
// tools for the models behind it. See the README for the commands.
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `toolstream — an OpenAI-compatible proxy that runs tools for your models

Usage:
  toolstream serve [-config FILE] [-listen ADDR]   run the proxy
  toolstream demo                                  run a scripted conversation through the proxy
  toolstream check -config FILE                    validate a config; print every problem
  toolstream version                               print version, commit and Go version

Environment: TOOLSTREAM_CONFIG and TOOLSTREAM_LISTEN stand in for -config and -listen.
`

// Exit codes: 0 success, 1 runtime or config error, 2 usage error.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stderr)
	case "demo":
		return runDemo(args[1:], stdout, stderr)
	case "check":
		return check(args[1:], stdout, stderr)
	case "version":
		return version(stdout)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "toolstream: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}
