package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// settleMax bounds the wait for the proxy to return to its baseline after
// the run: past the 90s after which its transports close idle keep-alive
// connections to the upstream and webhooks.
const settleMax = 100 * time.Second

type loadOptions struct {
	Streams, Chunks, Turns int
	Pace, Timeout          time.Duration
	Bin                    string
}

// turnResult is what one client read in one turn.
type turnResult struct {
	ttft    time.Duration
	lost    bool // the text read is not the text sent
	corrupt int  // frames that are not JSON
	err     error
}

func load(ctx context.Context, o loadOptions, logw io.Writer) (*report, error) {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "toolstream-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin := o.Bin
	if bin == "" {
		if bin, err = buildBin(ctx, dir, logw); err != nil {
			return nil, err
		}
	}

	sc := newScript(o.Chunks, o.Pace)
	up, base, err := serveScript(sc)
	if err != nil {
		return nil, err
	}
	defer up.Close()
	file, err := writeLoadConfig(dir, base)
	if err != nil {
		return nil, err
	}
	addr, stopProxy, err := startProxy(ctx, bin, file)
	if err != nil {
		return nil, err
	}
	defer stopProxy()
	proxyURL := "http://" + addr

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.Streams, MaxConnsPerHost: 0}}
	rep := &report{opts: o}
	// Warm up: one turn, so "before" is a proxy that has served.
	if r := turn(ctx, client, proxyURL, sc.text); r.err != nil || r.lost {
		return nil, fmt.Errorf("warm-up turn failed: %v (lost=%v)", r.err, r.lost)
	}
	rep.Before, _ = settle(client, up, proxyURL, nil)
	rep.Peak = rep.Before
	start := time.Now()
	runTurns(ctx, client, proxyURL, sc.text, o, rep)
	rep.Elapsed = time.Since(start)
	rep.After, rep.Settled = settle(client, up, proxyURL, &rep.Before)

	rep.WebhookCalls = sc.calls.Load() - 1
	if ctx.Err() != nil {
		return rep, fmt.Errorf("stopped after %s: %w", o.Timeout, ctx.Err())
	}
	return rep, nil
}

// buildBin builds toolstream into dir and returns the binary's path.
func buildBin(ctx context.Context, dir string, logw io.Writer) (string, error) {
	bin := filepath.Join(dir, "toolstream")
	fmt.Fprintln(logw, "building toolstream …")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/toolstream").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/toolstream (run from the repository root, or pass -bin): %v\n%s", err, out)
	}
	return bin, nil
}

// serveScript serves sc as the model and the webhook tool on loopback;
// base is its root URL.
func serveScript(sc *script) (up *http.Server, base string, err error) {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", sc.chat)
	mux.HandleFunc("/create_task", sc.hook)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	up = &http.Server{Handler: mux}
	go up.Serve(ln)
	return up, "http://" + ln.Addr().String(), nil
}

// writeLoadConfig writes into dir the proxy's config file: the script at
// base as its upstream and its webhook tool, keepalives off.
func writeLoadConfig(dir, base string) (string, error) {
	cfg := fmt.Sprintf(`listen: 127.0.0.1:0
storage: {in_memory: true}
log: {level: info}
loop: {keepalive: 0s}
upstreams:
  - name: bench
    base_url: %s/v1
    models: ["*"]
    tool_mode: text
    text_format: hermes
tools:
  - name: create_task
    description: Create a task.
    parameters: {type: object, properties: {title: {type: string}}, required: [title]}
    webhook: {url: "%s/create_task"}
`, base, base)
	file := filepath.Join(dir, "toolstream.yaml")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		return "", err
	}
	return file, nil
}

// settle lets every connection go idle and be closed on both sides (up,
// the script's server, closes its idle ones when keep-alives are turned
// off), so that what remains in the proxy is what it holds for itself.
// With base nil it samples after 2s; else once the proxy is back to
// base, or after settleMax.
//
// Keep-alives are turned off again on every poll: each time closes the
// connections idle by then. The proxy's webhook transport may dial a
// connection that never carries a request (another one freed first);
// the server counts it idle only once it is 5s old, so one call at the
// start would leave it open until the proxy's own 90s idle timeout.
func settle(client *http.Client, up *http.Server, proxyURL string, base *stats) (stats, time.Duration) {
	client.CloseIdleConnections()
	defer up.SetKeepAlivesEnabled(true)
	t0 := time.Now()
	var s stats
	for {
		up.SetKeepAlivesEnabled(false)
		time.Sleep(500 * time.Millisecond)
		client.CloseIdleConnections()
		s = sample(client, proxyURL)
		client.CloseIdleConnections()
		if base == nil && time.Since(t0) >= 2*time.Second ||
			base != nil && s.Goroutines <= base.Goroutines+2 && s.OpenFDs <= base.OpenFDs+2 ||
			time.Since(t0) > settleMax {
			return s, time.Since(t0)
		}
	}
}

// runTurns runs o.Streams clients of o.Turns turns each, expecting want,
// into rep, sampling the proxy into rep.Peak every 500ms and once more at
// the end.
func runTurns(ctx context.Context, client *http.Client, proxyURL, want string, o loadOptions, rep *report) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range o.Streams {
		wg.Go(func() {
			for range o.Turns {
				if ctx.Err() != nil {
					return
				}
				r := turn(ctx, client, proxyURL, want)
				mu.Lock()
				rep.add(r)
				mu.Unlock()
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for running := true; running; {
		select {
		case <-done:
			running = false
			rep.Peak.max(sample(client, proxyURL))
		case <-tick.C:
			rep.Peak.max(sample(client, proxyURL))
		}
	}
}

// startProxy runs "toolstream serve file" and returns its address.
func startProxy(ctx context.Context, bin, file string) (string, func(), error) {
	cmd := exec.Command(bin, "serve", file)
	cmd.Env = append(os.Environ(), "TOOLSTREAM_CONFIG=", "TOOLSTREAM_LISTEN=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}
	listening := regexp.MustCompile(`msg=listening .*addr=(\S+)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case addr := <-found:
		return addr, stop, nil
	case <-time.After(20 * time.Second):
	case <-ctx.Done():
	}
	stop()
	return "", nil, errors.New("toolstream serve did not start listening")
}

// turn sends one streaming request and checks every frame it reads.
func turn(ctx context.Context, c *http.Client, url, want string) turnResult {
	body := `{"model":"` + model + `","stream":true,"messages":[{"role":"user","content":"add a task"}]}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
	if err != nil {
		return turnResult{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	sent := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return turnResult{err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return turnResult{err: fmt.Errorf("status %d: %s", resp.StatusCode, b)}
	}
	var r turnResult
	var text strings.Builder
	var frame struct {
		Choices []struct {
			Delta struct {
				Content string `json:"content"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Toolstream *struct {
			Event  string `json:"event"`
			Status string `json:"status"`
		} `json:"toolstream"`
		Error json.RawMessage `json:"error"`
	}
	dones, finishes, ok := 0, 0, 0
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadBytes('\n')
		if d, found := bytes.CutPrefix(line, []byte("data: ")); found {
			d = bytes.TrimSpace(d)
			switch {
			case string(d) == "[DONE]":
				dones++
			case json.Unmarshal(d, &frame) != nil:
				r.corrupt++
			default:
				for _, ch := range frame.Choices {
					if ch.Delta.Content != "" && text.Len() == 0 {
						r.ttft = time.Since(sent)
					}
					text.WriteString(ch.Delta.Content)
					if ch.FinishReason != nil {
						finishes++
					}
				}
				if frame.Toolstream != nil && frame.Toolstream.Event == "tool.finished" && frame.Toolstream.Status == "ok" {
					ok++
				}
				if frame.Error != nil {
					r.err = fmt.Errorf("error event: %s", frame.Error)
				}
				frame.Choices, frame.Toolstream, frame.Error = nil, nil, nil
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && r.err == nil {
				r.err = err
			}
			break
		}
	}
	r.lost = text.String() != want
	if r.err == nil && (dones != 1 || finishes != 1 || ok != 1) {
		r.err = fmt.Errorf("[DONE] %d×, finish %d×, tool.finished ok %d×", dones, finishes, ok)
	}
	return r
}

// percentile of sorted durations.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[min(len(d)-1, int(p*float64(len(d))))]
}
