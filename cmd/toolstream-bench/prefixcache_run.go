package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// scenPrefix is compare's prefix-cache scenario: tool turns against
// prefixUpstream, for the ts-call targets.
const scenPrefix = "prefix"

// prefixFigures are one prefix run of a target: per mode (text, native),
// each turn's time to first token of each round as the client saw it
// (from the request, or the round.started event, to the round's first
// content), and
// the prompt bytes the upstream computed and was sent, by round.
type prefixFigures struct {
	modes map[string]prefixMode
}

type prefixMode struct {
	round1, round2, round3          []time.Duration
	prefilled, total                [3]int64
	turns, failed                   int
	firstErr                        error
	round1P50, round2P50, round3P50 time.Duration
}

// prefixModes are the upstream models of the two turns, by mode.
var prefixModes = []struct{ name, model string }{{"text", modelPrefixText}, {"native", modelPrefixNative}}

// runPrefix runs the prefix scenario for every ts-call target, each
// repeat starting one target further on, and keeps the figures in c.
func (c *comparison) runPrefix(ctx context.Context, env targetEnv, o compareOptions, logw io.Writer) error {
	var names []string
	for _, t := range o.Targets {
		if targetKind(t) == targetCall {
			names = append(names, t)
		}
	}
	c.prefix = map[string][]prefixFigures{}
	for rep := range o.Repeats {
		for i := range names {
			name := names[(i+rep)%len(names)]
			fmt.Fprintf(logw, "repeat %d/%d · %s · %s", rep+1, o.Repeats, scenPrefix, name)
			f, err := measurePrefix(ctx, env, o, name)
			if err != nil {
				fmt.Fprintln(logw)
				return fmt.Errorf("%s, %s: %w", name, scenPrefix, err)
			}
			for _, m := range prefixModes {
				fm := f.modes[m.name]
				fmt.Fprintf(logw, " · %s round 2 %.1f ms, round 3 %.1f ms", m.name, durMs(fm.round2P50), durMs(fm.round3P50))
			}
			fmt.Fprintln(logw)
			c.prefix[name] = append(c.prefix[name], f)
		}
	}
	return nil
}

// measurePrefix starts a fresh target in front of a fresh cache for each
// mode and runs o.PrefixTurns turns through it, one after another.
func measurePrefix(ctx context.Context, env targetEnv, o compareOptions, name string) (prefixFigures, error) {
	f := prefixFigures{modes: map[string]prefixMode{}}
	for _, m := range prefixModes {
		up := &prefixUpstream{nsPerByte: o.PrefillNsPerByte}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return f, err
		}
		srv := &http.Server{Handler: up}
		var serving sync.WaitGroup
		serving.Go(func() { srv.Serve(ln) })
		pm, err := prefixTurns(ctx, env, o, name, "http://"+ln.Addr().String(), m.model)
		srv.Close()
		serving.Wait()
		if err != nil {
			return f, err
		}
		pm.prefilled, pm.total = up.prefilled, up.total
		f.modes[m.name] = pm
	}
	return f, nil
}

// prefixTurns runs the turns of one mode against a toolstream in front of
// upstream.
func prefixTurns(ctx context.Context, env targetEnv, o compareOptions, name, upstream, model string) (prefixMode, error) {
	var pm prefixMode
	url, stop, err := startPrefixTarget(ctx, env, name, upstream)
	if err != nil {
		return pm, err
	}
	defer stop()
	c := newClient(1)
	defer c.CloseIdleConnections()
	// One conversation, as an agent session is: each turn's request
	// holds the earlier turns as the client saw them (toolstream
	// stitches their rounds back in) and one more question.
	conv := `{"role":"system","content":"You are the billing assistant of a small firm."}`
	for i := range o.PrefixTurns {
		conv += `,{"role":"user","content":"` + prefixQuestion + ` 120 euros (order ` + strconv.Itoa(1000+i) + `)."}`
		ttft, seen, err := prefixTurn(ctx, c, url, `{"model":"`+model+`","stream":true,"messages":[`+conv+`]}`)
		pm.turns++
		if err != nil {
			pm.failed++
			if pm.firstErr == nil {
				pm.firstErr = err
			}
			break // the conversation cannot go on without the answer
		}
		q, _ := json.Marshal(seen)
		conv += `,{"role":"assistant","content":` + string(q) + `}`
		pm.round1, pm.round2, pm.round3 = append(pm.round1, ttft[1]), append(pm.round2, ttft[2]), append(pm.round3, ttft[3])
	}
	if pm.failed == pm.turns {
		return pm, fmt.Errorf("every turn failed, first: %w", pm.firstErr)
	}
	pm.round1P50, pm.round2P50, pm.round3P50 = percentile(pm.round1, 0.5), percentile(pm.round2, 0.5), percentile(pm.round3, 0.5)
	return pm, nil
}

// prefixTurn sends one turn and reads it to [DONE]: ttft[n] is round n's
// time from its round.started event (round 1: from the request) to its
// first content; seen is the
// text the client read.
func prefixTurn(ctx context.Context, c *http.Client, url, body string) (ttft map[int]time.Duration, seen string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+benchKey)
	sent := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, "", fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	var text strings.Builder
	ttft = map[int]time.Duration{}
	round, started := 1, sent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, doneLine):
			if _, ok := ttft[3]; !ok {
				return nil, "", fmt.Errorf("the turn took %d rounds, want 3", round)
			}
			return ttft, text.String(), nil
		case bytes.Contains(line, []byte(`"event":"round.started"`)):
			round++
			started = time.Now()
		case chatProto.content(line):
			if _, ok := ttft[round]; !ok {
				ttft[round] = time.Since(started)
			}
			var ch struct {
				Choices []struct{ Delta struct{ Content string } }
			}
			if json.Unmarshal(bytes.TrimPrefix(line, []byte("data: ")), &ch) == nil && len(ch.Choices) > 0 {
				text.WriteString(ch.Choices[0].Delta.Content)
			}
		}
	}
	return nil, "", fmt.Errorf("stream ended without [DONE]: %v", sc.Err())
}

// startPrefixTarget starts toolstream (this build, or the base's for an
// @base name) with 40 server tools, so that a turn searches for the one it
// needs, and three rounds a turn: the search, the call, the answer.
func startPrefixTarget(ctx context.Context, env targetEnv, name, upstream string) (url string, stop func(), err error) {
	addr, err := freeAddr()
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "listen: %s\nauth: {keys: [%s]}\nstorage: {in_memory: true}\nlog: {level: warn}\n", addr, benchKey)
	b.WriteString("loop: {keepalive: 0s, tool_search_threshold: 8, max_rounds: 3}\nupstreams:\n")
	for _, m := range []struct{ model, mode string }{{modelPrefixText, "text"}, {modelPrefixNative, "native"}} {
		fmt.Fprintf(&b, "  - {name: %s, base_url: %s/v1, models: [%s], tool_mode: %s, text_format: hermes}\n", m.mode, upstream, m.model, m.mode)
	}
	b.WriteString("tools:\n")
	fmt.Fprintf(&b, "  - {name: send_invoice, description: Send an invoice to a customer by email., parameters: {type: object, properties: {customer: {type: string}, amount: {type: number}}, required: [customer]}, webhook: {url: \"%s/hook/send_invoice\"}}\n", upstream)
	for i := 1; i < 40; i++ {
		fmt.Fprintf(&b, "  - {name: metric_%03d, description: Reports warehouse metric %d for a site and a day., parameters: {type: object, properties: {site: {type: string}, day: {type: string}}}, webhook: {url: \"%s/hook/metric\"}}\n", i, i, upstream)
	}
	file := filepath.Join(env.dir, "prefix-"+strings.ReplaceAll(name, "@", "-")+".yaml")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		return "", nil, err
	}
	bin := env.bin
	if strings.HasSuffix(name, baseSuffix) {
		bin = env.baseBin
	}
	cmd := env.command(bin, "serve", file)
	cmd.Env, cmd.Stderr = append(os.Environ(), "TOOLSTREAM_CONFIG=", "TOOLSTREAM_LISTEN="), os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}
	if err := waitListening(ctx, addr); err != nil {
		stop()
		return "", nil, fmt.Errorf("%s: %w", name, err)
	}
	return "http://" + addr, stop, nil
}

// printPrefix prints the prefix scenario's table: per target and mode,
// the medians over the repeats.
func (c *comparison) printPrefix(w io.Writer) {
	if len(c.prefix) == 0 {
		return
	}
	o := c.opts
	fmt.Fprintf(w, "prefix cache: %d turns of 3 rounds (find_tools, the tool found, the answer; the last is max_rounds), prefill %s per uncached prompt byte (tools, then messages)\n\n",
		o.PrefixTurns, time.Duration(o.PrefillNsPerByte))
	fmt.Fprintln(w, "| target | mode | round-1 TTFT p50 | round-2 TTFT p50 | round-3 TTFT p50 | prompt bytes computed per turn (of sent) | failed turns |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- |")
	for _, t := range o.Targets {
		fs := c.prefix[t]
		if len(fs) == 0 {
			continue
		}
		for _, m := range prefixModes {
			med := func(get func(prefixMode) float64) float64 {
				vs := make([]float64, len(fs))
				for i, f := range fs {
					vs[i] = get(f.modes[m.name])
				}
				slices.Sort(vs)
				return vs[len(vs)/2]
			}
			r1 := med(func(p prefixMode) float64 { return durMs(p.round1P50) })
			r2 := med(func(p prefixMode) float64 { return durMs(p.round2P50) })
			r3 := med(func(p prefixMode) float64 { return durMs(p.round3P50) })
			per := func(p prefixMode, v int64) float64 { return float64(v) / float64(max(1, p.turns)) }
			computed := med(func(p prefixMode) float64 { return per(p, p.prefilled[0]+p.prefilled[1]+p.prefilled[2]) })
			sent := med(func(p prefixMode) float64 { return per(p, p.total[0]+p.total[1]+p.total[2]) })
			failed := med(func(p prefixMode) float64 { return float64(p.failed) })
			fmt.Fprintf(w, "| %s | %s | %.1f ms | %.1f ms | %.1f ms | %.0f (%.0f) | %.0f |\n", t, m.name, r1, r2, r3, computed, sent, failed)
		}
	}
	fmt.Fprintln(w)
	for _, t := range o.Targets {
		for _, f := range c.prefix[t] {
			for _, m := range prefixModes {
				if err := f.modes[m.name].firstErr; err != nil {
					fmt.Fprintf(w, "%s prefix %s: first failed turn: %v\n", t, m.name, err)
				}
			}
		}
	}
}
