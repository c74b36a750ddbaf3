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
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := demo.Options{Out: stdout, Raw: *raw, Listen: *listen, ToolsFile: *toolsFile, Prompts: fs.Args()}
	if err := demo.Run(ctx, opts); err != nil {
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
