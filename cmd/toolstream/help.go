package main

import (
	"fmt"
	"io"
	"slices"
)

// commandHelp is each command's `toolstream help CMD` / `CMD -h` text:
// what it does, every flag with an example, and the exit codes. A test
// holds it to the flags each command really defines.
var commandHelp = map[string]string{
	"serve": `toolstream serve [FILE] [-config FILE] [-listen ADDR]

Run the proxy with the config FILE (default ./toolstream.yaml). Point any
OpenAI client at http://ADDR/v1.

Flags:
  -config FILE   the config file; the same as the plain argument FILE.
                 Environment: TOOLSTREAM_CONFIG.
                   toolstream serve -config /etc/toolstream/toolstream.yaml
  -listen ADDR   the address to listen on, overriding the config's listen.
                 Environment: TOOLSTREAM_LISTEN.
                   toolstream serve toolstream.yaml -listen 0.0.0.0:8080

Signals: SIGHUP reloads FILE without dropping open streams (a file with
errors is refused and the running config stays); SIGTERM or SIGINT stops
accepting and lets open streams finish for shutdown_grace.

Exit codes: 0 stopped by a signal, 1 config or runtime error, 2 usage error.
`,
	"demo": `toolstream demo [-raw] [-listen ADDR] [-tools FILE] [-pace D] [PROMPT ...]
       toolstream demo -model-only -listen ADDR [-pace D]

Run a scripted model, the example tool servers (tasks, kanban, avatar) as
webhook tools and the proxy on loopback, send one conversation ("Create
three tasks for tomorrow…") and print what the client sees as it arrives.
Needs nothing else: no model server, no config file.

Each PROMPT after the flags is sent instead, in order, each as a
conversation of its own against the same tools. The scripted model
creates, lists, updates and deletes tasks, puts kanban cards on the board
and moves them, and makes the avatar smile or wave; asked anything else, it
says what it can do. A delete waits for your approval: the demo prints the
curl command that gives it.
  toolstream demo "Put a dentist appointment on my task board for Friday" "What is on my list?"
  toolstream demo "Add a task to call mom" "Mark task 1 as done" "Delete task 1"

Flags:
  -raw           print the raw SSE lines instead of the readable rendering.
                   toolstream demo -raw
  -model-only    serve only the scripted model, at http://ADDR/v1 (-listen),
                 as the upstream of a proxy of your own: nothing to install
                 to try a config, the replicas example or the example
                 clients. It writes its calls as <tool_call> text, so give
                 its upstream entry tool_mode: text.
                   toolstream demo -model-only -listen 127.0.0.1:9090
  -pace D        the scripted model waits D before each chunk after the
                 first, so a turn lasts long enough to stop it or watch it
                 in the console's Live view (0, the default: no wait).
                   toolstream demo -pace 50ms -listen 127.0.0.1:8080
  -listen ADDR   keep the proxy serving on ADDR after the conversation, so
                 you can open the console at http://ADDR/ in a browser or
                 point curl or an SDK at http://ADDR/v1: the scripted model
                 is listed in /v1/models as demo-model.
                   toolstream demo -listen 127.0.0.1:8080
  -tools FILE    call the tools of this config file instead of running the
                 example tool servers, e.g. the ones go run
                 ./examples/tools/serve starts. Its tools: and
                 auth.webhook_allow are used, its other keys are not; the
                 demo always lets runtime webhooks (POST /admin/tools,
                 with the admin key it prints) call loopback.
                   toolstream demo -tools examples/tools/toolstream.yaml -listen 127.0.0.1:8080

Exit codes: 0 done (or stopped with Ctrl-C), 1 error, 2 usage error.
`,
	"check": `toolstream check [FILE] [-config FILE]

Validate a config file (default ./toolstream.yaml) the way serve would read
it, environment variables expanded, and print every problem as
file:line:col. Use it before a deploy or a reload (SIGHUP).

Flags:
  -config FILE   the config file; the same as the plain argument FILE.
                 Environment: TOOLSTREAM_CONFIG.
                   toolstream check examples/tools/toolstream.yaml

Exit codes: 0 the file is valid, 1 it has problems, 2 usage error.
`,
	"health": `toolstream health [FILE] [-config FILE] [-listen ADDR] [-timeout D]

Ask a running proxy's /healthz; exit 0 when it answers 200. The container
image's HEALTHCHECK uses it (a distroless image has no curl).

Flags:
  -config FILE   the config whose listen address to probe; the same as the
                 plain argument FILE. Environment: TOOLSTREAM_CONFIG.
                   toolstream health /etc/toolstream/toolstream.yaml
  -listen ADDR   the address to probe, overriding the config's listen.
                 Environment: TOOLSTREAM_LISTEN.
                   toolstream health -listen 127.0.0.1:8080
  -timeout D     how long to wait for the answer (default 5s).
                   toolstream health -listen 127.0.0.1:8080 -timeout 2s

Exit codes: 0 healthy, 1 not answering or not 200, 2 usage error.
`,
	"version": `toolstream version   (also -version, --version)

Print the module version, the VCS commit the binary was built from and the
Go version. A binary built from a checkout says "(devel)".
`,
	"help": `toolstream help [COMMAND]

Print the overview, or one command's flags with examples. -h, -help and
--help after any command do the same.
`,
}

// helpFlag reports whether args ask for help.
func helpFlag(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" })
}

// help prints the overview, or the help of the command args name.
func help(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	text, ok := commandHelp[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "toolstream help: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	fmt.Fprint(stdout, text)
	return exitOK
}
