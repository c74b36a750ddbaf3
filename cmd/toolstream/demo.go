package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/toolstream/toolstream/examples/demo"
)

// runDemo runs the scripted conversation, or the prompts given after the
// flags, and prints what the client sees.
func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	raw := fs.Bool("raw", false, "print the raw SSE lines instead of the readable rendering")
	listen := fs.String("listen", "", "keep the proxy serving on this address after the conversation (e.g. 127.0.0.1:8080)")
	toolsFile := fs.String("tools", "", "call the tools of this config file instead of running the example tool servers")
	modelOnly := fs.Bool("model-only", false, "serve only the scripted model, at http://ADDR/v1 (needs -listen)")
	pace := fs.Duration("pace", 0, "wait this long before each of the scripted model's chunks after the first (e.g. 50ms)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if msg := demoFlagProblem(*modelOnly, *listen, *pace, *raw, *toolsFile, fs.NArg()); msg != "" {
		fmt.Fprintln(stderr, "toolstream demo:", msg)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *modelOnly {
		err = demo.ServeModel(ctx, *listen, *pace, stdout)
	} else {
		err = demo.Run(ctx, demo.Options{Out: stdout, Raw: *raw, Listen: *listen, ToolsFile: *toolsFile, Prompts: fs.Args(), Pace: *pace})
	}
	if err != nil {
		// Only -listen names a port of the user's: the scripted model
		// and the tool servers take free ones. A busy port says what to
		// do, as serve does, not "bind: address already in use".
		if *listen != "" && errors.Is(err, syscall.EADDRINUSE) {
			err = listenError(*listen, err, "give -listen a free port")
		}
		fmt.Fprintln(stderr, "toolstream demo:", err)
		return exitFail
	}
	return exitOK
}

// demoFlagProblem says what is wrong with the demo's flags together, or
// "": -model-only needs an address and takes none of the conversation's
// flags (they would be silently ignored), and a pace is not negative.
func demoFlagProblem(modelOnly bool, listen string, pace time.Duration, raw bool, toolsFile string, prompts int) string {
	switch {
	case pace < 0:
		return "-pace must not be negative"
	case !modelOnly:
		return ""
	case listen == "":
		return "-model-only needs -listen ADDR, the address to serve the model on (e.g. 127.0.0.1:9090)"
	case raw || toolsFile != "" || prompts > 0:
		return "-model-only serves the model only: -raw, -tools and prompts are for the conversation, which it does not run"
	}
	return ""
}
