package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// comparison is a compare run's results: per target and scenario, one
// figures per repeat.
type comparison struct {
	opts         compareOptions
	nginxVersion string
	pinned       bool
	results      map[string]map[string][]figures
	prefix       map[string][]prefixFigures // by target: the prefix scenario
}

// median of one figure over the repeats of (target, scenario); ok is
// false when the pair was not run.
func (c *comparison) median(target, scen string, get func(figures) float64) (float64, bool) {
	fs := c.results[target][scen]
	if len(fs) == 0 {
		return 0, false
	}
	vs := make([]float64, len(fs))
	for i, f := range fs {
		vs[i] = get(f)
	}
	slices.Sort(vs)
	return vs[len(vs)/2], true
}

// column is one figure of the table.
type column struct {
	head   string
	scen   string
	get    func(figures) float64
	format func(float64) string
	// proxyOnly figures mean nothing for direct (no process between).
	proxyOnly bool
}

func ms(v float64) string  { return fmt.Sprintf("%.2f ms", v) }
func sec(v float64) string { return fmt.Sprintf("%.3f s", v) }
func kib(v float64) string { return fmt.Sprintf("%.1f KiB", v) }
func num(v float64) string { return fmt.Sprintf("%.0f", v) }
func mib(v float64) string { return fmt.Sprintf("%.0f MiB", v) }

func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

var columns = []column{
	{"c=1 TTFT p50", scenC1, func(f figures) float64 { return durMs(f.ttftP50) }, ms, false},
	{"c=1 TTFT p99", scenC1, func(f figures) float64 { return durMs(f.ttftP99) }, ms, false},
	{"c=1 tool round trip p50", scenC1, func(f figures) float64 { return float64(f.toolRTP50.Microseconds()) }, us, true},
	{"c=1 tool round trip p99", scenC1, func(f figures) float64 { return float64(f.toolRTP99.Microseconds()) }, us, true},
	{"c=64 CPU per 1k streams", scenC64, func(f figures) float64 { return f.cpuPer1k.Seconds() }, sec, true},
	{"c=64 streams/s", scenC64, func(f figures) float64 { return f.perSec }, num, false},
	{"c=64 bytes per stream", scenC64, func(f figures) float64 { return f.wireBytes / 1024 }, kib, false},
	{"c=64 tool round trip p50 (saturated)", scenC64, func(f figures) float64 { return float64(f.toolRTP50.Microseconds()) }, us, true},
	{"c=64 tool round trip p99 (saturated)", scenC64, func(f figures) float64 { return float64(f.toolRTP99.Microseconds()) }, us, true},
	{"c=64 paced tool round trip p50", scenC64Paced, func(f figures) float64 { return float64(f.toolRTP50.Microseconds()) }, us, true},
	{"c=64 paced tool round trip p99", scenC64Paced, func(f figures) float64 { return float64(f.toolRTP99.Microseconds()) }, us, true},
	{"c=256 CPU per 1k streams", scenC256, func(f figures) float64 { return f.cpuPer1k.Seconds() }, sec, true},
	{"c=256 TTFT p99", scenC256, func(f figures) float64 { return durMs(f.ttftP99) }, ms, false},
	{"c=256 gap p99", scenC256, func(f figures) float64 { return durMs(f.gapP99) }, ms, false},
	{"idle memory per stream", scenIdle, func(f figures) float64 { return f.bytesPerStream / 1024 }, kib, true},
	{"idle RSS", scenIdle, func(f figures) float64 { return f.rssHeld / (1 << 20) }, mib, true},
}

func (c *comparison) print(w io.Writer) {
	o := c.opts
	fmt.Fprintf(w, "toolstream-bench compare: %d chunks of %d bytes per stream, %d repeats (medians)\n", o.Chunks, o.ChunkBytes, o.Repeats)
	fmt.Fprintf(w, "machine: %s, %d CPUs, %s; ", cpuModel(), runtime.NumCPU(), runtime.Version())
	if c.pinned {
		fmt.Fprintln(w, "target pinned to CPU 0, upstream and load generator to CPU 1")
	} else {
		fmt.Fprintln(w, "not pinned")
	}
	if c.nginxVersion != "" {
		fmt.Fprintf(w, "nginx: %s, 1 worker, proxy_buffering off, upstream keepalive\n", c.nginxVersion)
	}
	starts := "starts spread over one stream's length"
	if o.Burst {
		starts = "all opened at once"
	}
	var scens []string
	for _, s := range o.Scenarios {
		switch s {
		case scenC1:
			scens = append(scens, fmt.Sprintf("c=1 %d streams", o.C1Streams))
		case scenC64:
			scens = append(scens, fmt.Sprintf("c=64 %d streams unpaced (the target saturated)", 64*o.C64PerConn))
		case scenC64Paced:
			scens = append(scens, fmt.Sprintf("c=64 %d streams paced 10ms, %s (calling targets only)", 64*o.C64PPerConn, starts))
		case scenC256:
			scens = append(scens, fmt.Sprintf("c=256 %d streams paced 10ms, %s", 256*o.C256PerConn, starts))
		case scenIdle:
			scens = append(scens, fmt.Sprintf("idle %d open streams", o.Idle))
		case scenPrefix:
			scens = append(scens, "prefix cache (below)")
		}
	}
	fmt.Fprintf(w, "scenarios: %s\n\n", strings.Join(scens, "; "))

	heads := []string{"target"}
	for _, col := range columns {
		if slices.Contains(o.Scenarios, col.scen) {
			heads = append(heads, col.head)
		}
	}
	heads = append(heads, "errors")
	fmt.Fprintln(w, "| "+strings.Join(heads, " | ")+" |")
	fmt.Fprintln(w, strings.Repeat("| --- ", len(heads))+"|")
	for _, t := range o.Targets {
		row := []string{t}
		for _, col := range columns {
			if !slices.Contains(o.Scenarios, col.scen) {
				continue
			}
			v, ok := c.median(t, col.scen, col.get)
			switch {
			case !ok || col.proxyOnly && t == targetDirect:
				row = append(row, "—")
			default:
				row = append(row, col.format(v))
			}
		}
		row = append(row, fmt.Sprint(c.errors(t)))
		fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
	}
	fmt.Fprintln(w)
	c.printPrefix(w)
	c.ratios(w)
	for _, t := range o.Targets {
		for _, scen := range o.Scenarios {
			for _, f := range c.results[t][scen] {
				if f.firstErr != nil {
					fmt.Fprintf(w, "%s %s: %d errors, first: %v\n", t, scen, f.errors, f.firstErr)
					break
				}
			}
		}
	}
}

// ratios prints each toolstream target against nginx and direct, text
// mode and the other routes against pass-through over chat completions,
// and each @base target against the same target of this build, for the
// figures the targets are set on.
func (c *comparison) ratios(w io.Writer) {
	type pair struct{ a, b string }
	var pairs []pair
	for _, t := range []string{targetPass, targetText, targetCall} {
		for _, base := range []string{targetNginx, targetDirect} {
			pairs = append(pairs, pair{t, base})
		}
	}
	pairs = append(pairs, pair{targetText, targetPass}, pair{targetResp, targetPass}, pair{targetMsg, targetPass})
	for _, t := range c.opts.Targets {
		switch {
		case strings.HasSuffix(t, pgSuffix): // PostgreSQL against badger
			pairs = append(pairs, pair{t, targetKind(t)})
		case strings.HasSuffix(t, baseSuffix): // this build against the base
			pairs = append(pairs, pair{strings.TrimSuffix(t, baseSuffix), t})
		}
	}
	for _, p := range pairs {
		var parts []string
		for _, col := range columns {
			if col.proxyOnly && p.b == targetDirect {
				continue
			}
			a, okA := c.median(p.a, col.scen, col.get)
			b, okB := c.median(p.b, col.scen, col.get)
			if !okA || !okB || b == 0 {
				continue
			}
			part := fmt.Sprintf("%s %.2f×", col.head, a/b)
			if lo, hi, ok := c.pairedSpread(p.a, p.b, col); ok && p.b == p.a+baseSuffix {
				part += fmt.Sprintf(" (repeats %.2f–%.2f×)", lo, hi)
			}
			parts = append(parts, part)
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "%s / %s: %s\n", p.a, p.b, strings.Join(parts, " · "))
		}
	}
	if a, ok := c.median(targetPass, scenC1, columns[0].get); ok {
		if n, ok := c.median(targetNginx, scenC1, columns[0].get); ok {
			d, _ := c.median(targetDirect, scenC1, columns[0].get)
			fmt.Fprintf(w, "added TTFT p50 at c=1: ts-pass %+.3f ms, nginx %+.3f ms (over direct)\n", a-d, n-d)
		}
	}
}

// pairedSpread is the lowest and highest ratio of a's figure to b's over
// the repeats, each repeat's a set against the same repeat's b: the two
// builds of one target run one after the other in every repeat, and on a
// shared machine the spread of these ratios says what a median ratio's
// distance from 1.00 is worth. Only for the figures of the proxy's own
// process (CPU, memory), and with more than one repeat.
func (c *comparison) pairedSpread(a, b string, col column) (lo, hi float64, ok bool) {
	fa, fb := c.results[a][col.scen], c.results[b][col.scen]
	if !col.proxyOnly || len(fa) < 2 || len(fa) != len(fb) {
		return 0, 0, false
	}
	for i := range fa {
		y := col.get(fb[i])
		if y == 0 {
			return 0, 0, false
		}
		r := col.get(fa[i]) / y
		if !ok || r < lo {
			lo = r
		}
		if !ok || r > hi {
			hi = r
		}
		ok = true
	}
	return lo, hi, ok
}

func (c *comparison) errors(target string) int {
	n := 0
	for _, fs := range c.results[target] {
		for _, f := range fs {
			n += f.errors
		}
	}
	return n
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
