package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/toolstream/toolstream/config"
)

// check validates a config file — FILE, -config FILE, TOOLSTREAM_CONFIG or
// ./toolstream.yaml, like serve — and prints every problem with
// file:line:col. Warnings (likely mistakes, such as a base_url without
// /v1) go to stderr too, but a file with only warnings is ok: exit 0.
func check(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flagged := fs.String("config", os.Getenv("TOOLSTREAM_CONFIG"), "config file to check (default ./toolstream.yaml); also a plain argument")
	file, err := configArg(fs, args, flagged)
	if err != nil {
		return exitUsage
	}
	if file, err = findConfig(file); err != nil {
		fmt.Fprintln(stderr, "toolstream check:", err)
		return exitFail
	}
	cfg, err := config.Load(file)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFail
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(stderr, w.String())
	}
	fmt.Fprintf(stdout, "%s: ok (%d upstreams, %d tools)\n", file, len(cfg.Upstreams), len(cfg.Tools))
	return exitOK
}
