// Command toolstream-bench measures toolstream under load on loopback.
//
//	go run ./cmd/toolstream-bench load -streams 1000 -pace 20ms
//
// "load" builds toolstream (or takes -bin), starts it as a child process in
// front of a scripted upstream and a webhook tool served by this process,
// and runs that many concurrent streams, each a text-mode turn with one
// tool call, for -turns turns each. It checks every frame each client
// reads against what the script sent, and reports lost or corrupted
// frames, errors, time to first token, and the proxy's goroutines, RSS and
// open files (from its own /metrics) before, at peak and after. Every
// address is loopback; the run is bounded by -turns and -timeout.
//
//	sh cmd/toolstream-bench/compare.sh
//
// "compare" puts nothing, nginx, and toolstream in pass-through (asked
// through chat completions, the Responses API and the Messages API), in
// text mode without calls and in text mode with one call, one after
// another between a load generator and a scripted upstream that
// pre-renders its events, and runs four loads against each: one client
// (per-request overhead), 64 clients unpaced (CPU per stream), 256
// clients paced 10ms (time to first token under load) and idle open
// streams (memory per stream). A client reads each stream to its
// protocol's end ([DONE], response.completed, message_stop). CPU time and
// resident memory are the target processes' own, from /proc. A turn with
// a call also times its tool round trip: from the upstream's write of the
// event that closes the block to the webhook request's arrival, stamped
// by the kernel (roundtrip.go). Every scenario gets a fresh process and
// is repeated; the report is the medians and their ratios. The prefix
// scenario runs the ts-call targets against an upstream with a prompt
// cache, which charges prefill time for every byte of a request after the
// longest prefix an earlier request shared (prefixcache.go): a
// conversation of tool turns of three rounds, in text mode and native,
// and each round's time to first token.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usageText = `usage:
  toolstream-bench load [-streams N] [-pace D] [-chunks N] [-turns N] [-timeout D] [-bin PATH]
  toolstream-bench compare [-nginx PATH] [-targets LIST] [-scenarios LIST] [-repeats N] [-chunks N] [-bin PATH] [-base-bin PATH] …`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "compare" {
		return runCompare(args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "load" {
		fmt.Fprintln(stderr, usageText)
		return 2
	}
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o loadOptions
	fs.IntVar(&o.Streams, "streams", 1000, "concurrent streams")
	fs.DurationVar(&o.Pace, "pace", 20*time.Millisecond, "upstream delay between chunks")
	fs.IntVar(&o.Chunks, "chunks", 20, "content chunks per round (two rounds a turn)")
	fs.IntVar(&o.Turns, "turns", 3, "turns per stream, one after another")
	fs.DurationVar(&o.Timeout, "timeout", 5*time.Minute, "bound on the whole run")
	fs.StringVar(&o.Bin, "bin", "", "toolstream binary (default: go build ./cmd/toolstream)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := load(ctx, o, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "toolstream-bench:", err)
		return 1
	}
	rep.print(stdout)
	if rep.Lost > 0 || rep.Corrupt > 0 || rep.Errors > 0 {
		return 1
	}
	return 0
}

func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o compareOptions
	targets := fs.String("targets", strings.Join(allTargets, ","), "what to put between the clients and the upstream; a toolstream target with @base (ts-pass@base) runs the -base-bin binary, ts-call@pg@base on PostgreSQL")
	scenarios := fs.String("scenarios", strings.Join(allScenarios, ","), "which loads to run")
	fs.IntVar(&o.Repeats, "repeats", 3, "runs of each scenario; the report shows medians")
	fs.IntVar(&o.Chunks, "chunks", 64, "content chunks per stream")
	fs.IntVar(&o.ChunkBytes, "chunk-bytes", 16, "bytes of content per chunk")
	fs.IntVar(&o.C1Streams, "c1-streams", 200, "streams of the c=1 scenario")
	fs.IntVar(&o.C64PerConn, "c64-streams", 20, "streams per client at c=64")
	fs.IntVar(&o.C64PPerConn, "c64p-streams", 5, "streams per client at c=64 paced (calling targets only)")
	fs.IntVar(&o.C256PerConn, "c256-streams", 3, "streams per client at c=256")
	fs.IntVar(&o.Idle, "idle", 500, "idle open streams")
	fs.DurationVar(&o.Hold, "hold", 500*time.Millisecond, "how long idle streams are held open before their memory is read")
	fs.StringVar(&o.Bin, "bin", "", "toolstream binary (default: go build ./cmd/toolstream)")
	fs.StringVar(&o.BaseBin, "base-bin", "", "a second toolstream binary, which the @base targets run: two builds side by side in one run")
	fs.StringVar(&o.Nginx, "nginx", "", "nginx binary, for the nginx target")
	fs.StringVar(&o.PGDSN, "pg-dsn", "", "a PostgreSQL database on this machine, which the @pg targets (ts-call@pg) store in; their CPU counts the database server's too")
	fs.BoolVar(&o.Burst, "burst", false, "c=256 and c=64 paced: open all the connections in the same instant instead of spreading their starts over one stream's length")
	fs.IntVar(&o.PrefixTurns, "prefix-turns", 5, "prefix scenario: tool turns per mode, one after another")
	fs.Int64Var(&o.PrefillNsPerByte, "prefill-ns-per-byte", 50000, "prefix scenario: prefill time of a prompt byte the upstream's cache does not hold, in ns (50µs: a 7B model at about 5,000 tokens/s)")
	fs.BoolVar(&o.NoPin, "no-pin", false, "do not pin the target to one CPU and the load to another")
	fs.DurationVar(&o.Timeout, "timeout", 15*time.Minute, "bound on the whole run")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	o.Targets, o.Scenarios = strings.Split(*targets, ","), strings.Split(*scenarios, ",")
	for _, t := range o.Targets {
		k := targetKind(t)
		if !slices.Contains(allTargets, k) || k != t && (k == targetDirect || k == targetNginx) {
			fmt.Fprintf(stderr, "unknown target %q\n", t)
			return 2
		}
	}
	for _, s := range o.Scenarios {
		if !slices.Contains(allScenarios, s) {
			fmt.Fprintf(stderr, "unknown scenario %q\n", s)
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmp, err := compare(ctx, o, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "toolstream-bench:", err)
		return 1
	}
	cmp.print(stdout)
	return 0
}
