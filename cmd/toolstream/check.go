package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/toolstream/toolstream/config"
)

// check validates a config file — FILE, -config FILE, TOOLSTREAM_CONFIG or
// ./toolstream.yaml, like serve — and prints every problem with
// file:line:col, and reads the openapi_tools documents. Warnings (likely mistakes, such as a base_url without
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
	// The openapi_tools documents are read too: a broken one is named at
	// its place, as serve would refuse it.
	oas, err := loadOpenAPI(context.Background(), cfg, nil)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFail
	}
	for _, w := range append(cfg.Warnings, skippedWarnings(cfg, oas)...) {
		fmt.Fprintln(stderr, w.String())
	}
	counts := count(len(cfg.Upstreams), "upstream") + ", " + count(len(cfg.Tools), "tool")
	if n := len(cfg.MCPServers); n > 0 {
		counts += ", " + count(n, "MCP server")
	}
	if n := len(cfg.OpenAPITools); n > 0 {
		counts += fmt.Sprintf(", %s (%s)", count(n, "OpenAPI document"), count(openAPITools(oas), "tool"))
	}
	if n := len(cfg.Policies); n > 0 {
		counts += ", " + count(n, "policy rule")
	}
	fmt.Fprintf(stdout, "%s: ok (%s)\n", file, counts)
	return exitOK
}

// count is n and noun, plural unless n is 1: "1 upstream", "0 tools".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
