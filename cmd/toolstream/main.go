// Command toolstream is a drop-in OpenAI-compatible proxy that runs server
// tools for the models behind it. See the README for the commands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
)

const usage = `toolstream — an OpenAI-compatible proxy that runs tools for your models

Usage:
  toolstream serve [FILE] [-listen ADDR]     run the proxy with FILE (default ./toolstream.yaml)
  toolstream demo [-raw] [-listen ADDR] [-tools FILE] [PROMPT ...]
                                             run a scripted conversation through the proxy, or
                                             your prompts; -raw prints the SSE lines, -listen
                                             keeps it serving, -tools calls the tool servers FILE names
  toolstream check [FILE]                    validate a config; print every problem as file:line:col
  toolstream health [FILE] [-listen ADDR] [-timeout D]
                                             ask a running proxy's /healthz; exit 0 on 200
  toolstream version                         print version, commit and Go version (also -version)
  toolstream help [COMMAND]                  this text, or a command's flags with examples (also COMMAND -h)

FILE may also be given as -config FILE. Environment: TOOLSTREAM_CONFIG and
TOOLSTREAM_LISTEN stand in for -config and -listen.

Examples:
  toolstream demo                                  see it work, no model server needed
  toolstream demo "What is on my list?"            your own prompt to the scripted model
  toolstream demo -listen 127.0.0.1:8080           then open http://127.0.0.1:8080/ or point any OpenAI client at /v1
  toolstream check toolstream.yaml && toolstream serve toolstream.yaml

Signals (serve): SIGHUP reloads FILE without dropping open streams; SIGTERM
or SIGINT stops accepting and lets open streams finish for shutdown_grace.
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
	if _, ok := commandHelp[args[0]]; ok && args[0] != "help" && helpFlag(args[1:]) {
		return help(args[:1], stdout, stderr)
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stderr)
	case "demo":
		return runDemo(args[1:], stdout, stderr)
	case "check":
		return check(args[1:], stdout, stderr)
	case "health":
		return health(args[1:], stdout, stderr)
	case "version", "-version", "--version":
		return version(stdout)
	case "help":
		return help(args[1:], stdout, stderr)
	case "-h", "-help", "--help":
		return help(nil, stdout, stderr)
	}
	fmt.Fprintf(stderr, "toolstream: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

// defaultConfig is the file serve and check read when none is named.
const defaultConfig = "toolstream.yaml"

// errNoConfig is serve's and check's answer when no file is named and
// ./toolstream.yaml does not exist. There is no built-in fallback: a proxy
// running on defaults nobody wrote down is hard to tell from a broken one.
var errNoConfig = errors.New("no config file: looked for ./" + defaultConfig +
	" (or set -config FILE / TOOLSTREAM_CONFIG); copy config.example.yaml to start")

// configArg parses args with fset, whose -config flag is flagged, and
// returns the config file named: a plain argument ("serve FILE") or
// -config (TOOLSTREAM_CONFIG); "" when neither. Flags may come after FILE.
// A non-nil error is a usage error that has been printed.
func configArg(fset *flag.FlagSet, args []string, flagged *string) (string, error) {
	var files []string
	for {
		if err := fset.Parse(args); err != nil {
			return "", err // the flag package printed it
		}
		if fset.NArg() == 0 {
			break
		}
		files = append(files, fset.Arg(0))
		args = fset.Args()[1:]
	}
	explicit := false
	fset.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "config" })
	var err error
	switch {
	case len(files) > 1:
		err = fmt.Errorf("one config file at most, got %q", files)
	case len(files) == 1 && explicit && *flagged != files[0]:
		err = fmt.Errorf("two config files: -config %s and %s", *flagged, files[0])
	case len(files) == 1:
		return files[0], nil
	default:
		return *flagged, nil
	}
	fmt.Fprintf(fset.Output(), "toolstream %s: %v\n", fset.Name(), err)
	return "", err
}

// findConfig returns file, or ./toolstream.yaml when file is "" and it
// exists, or errNoConfig.
func findConfig(file string) (string, error) {
	if file != "" {
		return file, nil
	}
	if _, err := os.Stat(defaultConfig); errors.Is(err, fs.ErrNotExist) {
		return "", errNoConfig
	}
	return defaultConfig, nil
}
