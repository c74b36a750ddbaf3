package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// compareOptions size a compare run.
type compareOptions struct {
	Targets     []string
	Scenarios   []string
	Repeats     int
	Chunks      int           // content chunks per stream
	ChunkBytes  int           // bytes of content per chunk
	C1Streams   int           // streams of the c=1 scenario
	C64PerConn  int           // streams per connection at c=64
	C64PPerConn int           // streams per connection at c=64 paced
	C256PerConn int           // streams per connection at c=256
	Idle        int           // idle open streams
	Hold        time.Duration // how long idle streams are held open before measuring
	Bin, Nginx  string
	BaseBin     string // toolstream binary of the @base targets
	PGDSN       string // PostgreSQL database of the @pg targets
	NoPin       bool
	Burst       bool // c=256: open every connection at once
	Timeout     time.Duration
	// The prefix scenario (prefixcache.go): turns per mode, and the
	// prefill time of an uncached prompt byte.
	PrefixTurns      int
	PrefillNsPerByte int64
}

// Scenarios of compare.
const (
	scenC1       = "c1"   // one client: per-request overhead
	scenC64      = "c64"  // 64 clients, no pacing: CPU per stream, the target saturated
	scenC64Paced = "c64p" // 64 clients paced as c256, calling targets: the round trip loaded, not saturated
	scenC256     = "c256" // 256 clients, 10ms between chunks: TTFT under load
	scenIdle     = "idle" // open streams holding still: memory per stream
)

// allScenarios are compare's scenarios, in the order a run takes them.
var allScenarios = []string{scenC1, scenC64, scenC64Paced, scenC256, scenIdle, scenPrefix}

// figures are one (target, scenario) measurement.
type figures struct {
	streams        int
	ttftP50        time.Duration
	ttftP99        time.Duration
	durP50         time.Duration
	gapP99         time.Duration
	perSec         float64
	cpuPer1k       time.Duration // CPU time of the target per 1,000 streams
	wireBytes      float64       // bytes of answer a client read per stream, on average
	bytesPerStream float64       // idle: resident memory per open stream
	rssHeld        float64       // idle: the target's resident memory with them open
	toolRTP50      time.Duration // a tool call's block closed → its webhook request (roundtrip.go)
	toolRTP99      time.Duration
	toolRTLost     int // webhook requests not set against a close
	errors         int
	firstErr       error
}

func compare(ctx context.Context, o compareOptions, logw io.Writer) (*comparison, error) {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "toolstream-compare-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	env := targetEnv{dir: dir, bin: o.Bin, baseBin: o.BaseBin, nginx: o.Nginx, pgDSN: o.PGDSN}
	cmp := &comparison{opts: o, results: map[string]map[string][]figures{}}
	if slices.Contains(o.Targets, targetNginx) {
		if env.nginx == "" {
			return nil, errors.New("the nginx target needs -nginx PATH (bench/compare.sh installs nginx and passes it)")
		}
		if cmp.nginxVersion, err = checkNginx(env.nginx); err != nil {
			return nil, err
		}
	}
	if env.pgDSN == "" && slices.ContainsFunc(o.Targets, onPostgres) {
		return nil, errors.New("the @pg targets need -pg-dsn, a PostgreSQL database on this machine")
	}
	if env.baseBin == "" && slices.ContainsFunc(o.Targets, func(t string) bool { return strings.HasSuffix(t, baseSuffix) }) {
		return nil, errors.New("the @base targets need -base-bin PATH, the toolstream binary to set beside this one")
	}
	if env.bin == "" {
		env.bin = filepath.Join(dir, "toolstream")
		fmt.Fprintln(logw, "building toolstream …")
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", env.bin, "./cmd/toolstream").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build ./cmd/toolstream (run from the repository root, or pass -bin): %v\n%s", err, out)
		}
	}
	if !o.NoPin && runtime.NumCPU() >= 2 {
		if ts, err := exec.LookPath("taskset"); err == nil {
			// The target on CPU 0; this process (upstream and load
			// generator) on CPU 1.
			if out, err := exec.Command(ts, "-a", "-p", "-c", "1", strconv.Itoa(os.Getpid())).CombinedOutput(); err == nil {
				env.pin = []string{ts, "-c", "0"}
				cmp.pinned = true
			} else {
				fmt.Fprintf(logw, "not pinning: %v %s\n", err, out)
			}
		}
	}

	up := newBenchUpstream(o.Chunks, o.ChunkBytes)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: up, ConnContext: stampContext}
	var serving sync.WaitGroup
	serving.Go(func() { srv.Serve(newStampListener(ln)) })
	defer func() {
		srv.Close()
		serving.Wait()
	}()
	env.upstream = "http://" + ln.Addr().String()

	for rep := range o.Repeats {
		for _, scen := range o.Scenarios {
			// Each repeat starts one target further on: a target
			// measured in the same place every time takes that
			// place's bias with it (on a shared 2-core VM, the same
			// build measured first and last in every repeat differed
			// by a tenth).
			for i := range o.Targets {
				name := o.Targets[(i+rep)%len(o.Targets)]
				if skipScenario(scen, name) {
					continue
				}
				fmt.Fprintf(logw, "repeat %d/%d · %s · %s", rep+1, o.Repeats, scen, name)
				f, err := measureScenario(ctx, env, up, o, name, scen)
				if err != nil {
					fmt.Fprintln(logw)
					return nil, fmt.Errorf("%s, %s: %w", name, scen, err)
				}
				// Each repeat's own figure, for the spread the medians
				// hide.
				switch scen {
				case scenIdle:
					fmt.Fprintf(logw, " · %.1f KiB per stream\n", f.bytesPerStream/1024)
				default:
					fmt.Fprintf(logw, " · CPU %.3f s per 1k streams · TTFT p50 %.2f ms%s\n", f.cpuPer1k.Seconds(), durMs(f.ttftP50), f.roundTripLog())
				}
				if cmp.results[name] == nil {
					cmp.results[name] = map[string][]figures{}
				}
				cmp.results[name][scen] = append(cmp.results[name][scen], f)
			}
		}
	}
	if slices.Contains(o.Scenarios, scenPrefix) {
		if err := cmp.runPrefix(ctx, env, o, logw); err != nil {
			return nil, err
		}
	}
	return cmp, nil
}

// skipScenario reports the (scenario, target) pairs compare does not
// run: idle holds a stream before any call, the same as ts-text; the paced
// c=64 is there for the round trip, which only a calling target makes; the
// prefix scenario runs apart (runPrefix).
func skipScenario(scen, target string) bool {
	switch scen {
	case scenPrefix:
		return true
	case scenIdle:
		return targetKind(target) == targetCall
	case scenC64Paced:
		return targetKind(target) != targetCall
	}
	return false
}

// measureScenario starts a fresh target, warms it up and runs one
// scenario against it.
func measureScenario(ctx context.Context, env targetEnv, up *benchUpstream, o compareOptions, name, scen string) (figures, error) {
	model := modelProse
	if targetKind(name) == targetCall {
		model = modelCall
	}
	if scen == scenIdle {
		model = modelIdle
	}
	t, err := startTarget(ctx, env, name, model)
	if err != nil {
		return figures{}, err
	}
	defer t.stop()
	c := newClient(max(256, o.Idle))
	defer c.CloseIdleConnections()

	up.pace.Store(0)
	warm := *t
	warm.model = modelProse
	if targetKind(name) == targetCall {
		warm.model = modelCall
	}
	for _, r := range runLoad(ctx, c, &warm, 4, 5, 0) {
		if r.err != nil {
			return figures{}, fmt.Errorf("warm-up: %w", r.err)
		}
	}
	if scen == scenIdle {
		return idle(ctx, c, t, up, o.Idle, o.Hold)
	}
	clients, per, pace := 1, o.C1Streams, time.Duration(0)
	var stagger time.Duration
	switch scen {
	case scenC64:
		clients, per = 64, o.C64PerConn
	case scenC64Paced:
		clients, per, pace = 64, o.C64PPerConn, 10*time.Millisecond
	case scenC256:
		clients, per, pace = 256, o.C256PerConn, 10*time.Millisecond
	}
	// Paced starts spread over one stream's length: a steady load, not
	// every connection opened in one instant.
	if pace > 0 && !o.Burst {
		stagger = pace * time.Duration(o.Chunks) / time.Duration(clients)
	}
	up.pace.Store(int64(pace))
	up.rt.take() // the warm-up's
	before := t.measure()
	start := time.Now()
	results := runLoad(ctx, c, t, clients, per, stagger)
	elapsed := time.Since(start)
	after := t.measure()
	f := summarize(results, o.Chunks)
	f.toolRTP50, f.toolRTP99, f.toolRTLost = roundTripFigures(up.rt.take())
	f.perSec = float64(len(results)) / elapsed.Seconds()
	if len(t.pids) > 0 {
		f.cpuPer1k = (after.cpu - before.cpu) * 1000 / time.Duration(len(results))
	}
	return f, nil
}

// summarize turns stream results into percentiles; a stream whose content
// chunks are not the chunks sent counts as an error.
func summarize(results []streamResult, chunks int) figures {
	f := figures{streams: len(results)}
	var ttft, dur, gap []time.Duration
	var read int64
	for _, r := range results {
		if r.err == nil && r.chunks != chunks {
			r.err = fmt.Errorf("read %d content chunks, want %d", r.chunks, chunks)
		}
		if r.err != nil {
			f.errors++
			if f.firstErr == nil {
				f.firstErr = r.err
			}
			continue
		}
		ttft, dur, gap = append(ttft, r.ttft), append(dur, r.duration), append(gap, r.maxGap)
		read += r.bytes
	}
	if n := len(results) - f.errors; n > 0 {
		f.wireBytes = float64(read) / float64(n)
	}
	f.ttftP50, f.ttftP99 = percentile(ttft, 0.5), percentile(ttft, 0.99)
	f.durP50, f.gapP99 = percentile(dur, 0.5), percentile(gap, 0.99)
	return f
}

// idle opens n streams that hold still after their first content, and
// measures the target's resident memory per open stream.
func idle(ctx context.Context, c *http.Client, t *target, up *benchUpstream, n int, hold time.Duration) (figures, error) {
	time.Sleep(300 * time.Millisecond)
	before := t.measure()
	var opened sync.WaitGroup
	opened.Add(n)
	results := make([]streamResult, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var once sync.Once
			results[i] = stream(ctx, c, t, func() { once.Do(opened.Done) })
			once.Do(opened.Done) // a stream that failed counts as opened
		})
	}
	opened.Wait()
	time.Sleep(hold)
	held := t.measure()
	up.releaseIdle()
	wg.Wait()
	f := summarize(results, 2)
	if len(t.pids) > 0 {
		f.bytesPerStream = float64(held.rss-before.rss) / float64(n)
		f.rssHeld = float64(held.rss)
	}
	return f, nil
}
