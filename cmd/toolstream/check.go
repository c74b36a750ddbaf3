package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/toolstream/toolstream/config"
)

// check validates a config file and prints every problem with
// file:line:col.
func check(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("config", os.Getenv("TOOLSTREAM_CONFIG"), "config file to check")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *file == "" {
		fmt.Fprintln(stderr, "toolstream check: -config FILE is required")
		return exitUsage
	}
	cfg, err := config.Load(*file)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFail
	}
	fmt.Fprintf(stdout, "%s: ok (%d upstreams, %d tools)\n", *file, len(cfg.Upstreams), len(cfg.Tools))
	return exitOK
}
