package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildToolstream builds the proxy for a test that runs it.
func buildToolstream(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds toolstream")
	}
	bin := filepath.Join(t.TempDir(), "toolstream")
	if out, err := exec.Command("go", "build", "-o", bin, "../toolstream").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestCompareSmall runs compare at a size a test can afford, against the
// direct upstream and every chat-completions target, and checks the report
// is sound: every stream read in full, CPU and memory read from /proc, and
// the table printed with its ratios. nginx is left out: CI need not have
// it, and the script that runs the real comparison installs it.
func TestCompareSmall(t *testing.T) {
	bin := buildToolstream(t)
	o := compareOptions{
		Targets:   []string{targetDirect, targetPass, targetText, targetCall},
		Scenarios: []string{scenC1, scenC64, scenC64Paced, scenIdle},
		Repeats:   1, Chunks: 8, ChunkBytes: 16, C1Streams: 5, C64PerConn: 1, C64PPerConn: 1, Idle: 20, Hold: 100 * time.Millisecond,
		Bin: bin, NoPin: true, Timeout: 2 * time.Minute,
	}
	cmp, err := compare(context.Background(), o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range o.Targets {
		if n := cmp.errors(target); n != 0 {
			t.Errorf("%s: %d errors", target, n)
		}
	}
	if f := cmp.results[targetCall][scenC64][0]; f.cpuPer1k <= 0 || f.streams != 64 {
		t.Errorf("ts-call c=64: %+v, want 64 streams and the proxy's CPU read", f)
	}
	if f := cmp.results[targetCall][scenC64][0]; f.toolRTP50 <= 0 || f.toolRTP99 < f.toolRTP50 || f.toolRTLost != 0 {
		t.Errorf("ts-call c=64: tool round trip p50 %s p99 %s, %d not matched; want every webhook request set against its block's close",
			f.toolRTP50, f.toolRTP99, f.toolRTLost)
	}
	if f := cmp.results[targetCall][scenC64Paced]; len(f) != 1 || f[0].streams != 64 || f[0].errors != 0 || f[0].toolRTP50 <= 0 || f[0].toolRTLost != 0 {
		t.Errorf("ts-call c=64 paced: %+v, want 64 streams, each call's round trip measured", f)
	}
	for _, target := range []string{targetDirect, targetPass, targetText} {
		if f, ran := cmp.results[target][scenC64Paced]; ran {
			t.Errorf("%s makes no calls, yet ran c=64 paced: %+v", target, f)
		}
	}
	if f := cmp.results[targetText][scenC64][0]; f.toolRTP50 != 0 || f.toolRTLost != 0 {
		t.Errorf("ts-text c=64 made no calls, yet has a tool round trip: %+v", f)
	}
	if f := cmp.results[targetPass][scenIdle][0]; f.bytesPerStream == 0 {
		t.Errorf("ts-pass idle: memory per stream not read: %+v", f)
	}
	var out bytes.Buffer
	cmp.print(&out)
	for _, want := range []string{"| ts-text |", "ts-text / ts-pass: c=1 TTFT p50", "idle memory per stream",
		"c=64 tool round trip p99 (saturated)", "c=64 paced tool round trip p99", "c=64 64 streams paced 10ms"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestCompareRoutes runs the same pass-through turn through chat
// completions, the Responses API and the Messages API, and a second
// binary beside the first (@base, the same build here), on loopback:
// every stream is read to its protocol's end event with all its content
// (a stream short of a content event counts as an error), the proxy's
// CPU and memory and the bytes read are there for each route, and the
// report sets each route against chat's and the base build against this
// one.
func TestCompareRoutes(t *testing.T) {
	bin := buildToolstream(t)
	o := compareOptions{
		Targets:   []string{targetPass, targetResp, targetMsg, targetPass + baseSuffix},
		Scenarios: []string{scenC64, scenIdle},
		// Four streams per client: /proc counts CPU in 10 ms ticks, and
		// 64 short streams can take less than one.
		Repeats: 1, Chunks: 8, ChunkBytes: 16, C64PerConn: 4, Idle: 20, Hold: 100 * time.Millisecond,
		Bin: bin, BaseBin: bin, NoPin: true, Timeout: 2 * time.Minute,
	}
	cmp, err := compare(context.Background(), o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range o.Targets {
		if n := cmp.errors(target); n != 0 {
			t.Errorf("%s: %d errors", target, n)
		}
		f := cmp.results[target][scenC64][0]
		if f.streams != 256 || f.cpuPer1k <= 0 || f.durP50 <= 0 || f.ttftP50 <= 0 || f.wireBytes <= 0 {
			t.Errorf("%s c=64: %+v, want 256 streams read to their end, the proxy's CPU and the bytes read", target, f)
		}
		if f := cmp.results[target][scenIdle][0]; f.bytesPerStream == 0 {
			t.Errorf("%s idle: memory per stream not read: %+v", target, f)
		}
	}
	var out bytes.Buffer
	cmp.print(&out)
	for _, want := range []string{"| ts-resp |", "| ts-msg |", "| ts-pass@base |", "ts-resp / ts-pass: c=64 CPU per 1k streams",
		"ts-msg / ts-pass: c=64 CPU per 1k streams", "ts-pass / ts-pass@base: c=64 CPU per 1k streams"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestStreamNeedsItsEnd: a stream counts as complete only once its
// protocol's end event is read; its content before that is counted, and
// a stream cut short of it, or ended by a failure event, is an error.
func TestStreamNeedsItsEnd(t *testing.T) {
	const (
		respHead = "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0}\n\n" +
			"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":4,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"Hi\",\"logprobs\":[]}\n\n" +
			"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":5,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\" there\",\"logprobs\":[]}\n\n" +
			"event: response.output_text.done\ndata: {\"type\":\"response.output_text.done\",\"sequence_number\":6,\"text\":\"Hi there\"}\n\n"
		msgHead = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"content\":[]}}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" there\"}}\n\n" +
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n"
	)
	for _, tc := range []struct {
		name   string
		target string
		path   string
		answer string
		ok     bool
	}{
		{"responses whole", targetResp, "/v1/responses", respHead + "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":9}\n\n", true},
		{"responses cut", targetResp, "/v1/responses", respHead, false},
		{"responses failed", targetResp, "/v1/responses", respHead + "event: response.failed\ndata: {\"type\":\"response.failed\",\"sequence_number\":7}\n\nevent: error\ndata: {\"type\":\"error\",\"sequence_number\":8}\n\n", false},
		{"messages whole", targetMsg, "/v1/messages", msgHead + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", true},
		{"messages cut", targetMsg, "/v1/messages", msgHead, false},
		{"messages error", targetMsg, "/v1/messages", msgHead + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\"}}\n\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != tc.path {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, tc.answer)
			}))
			defer srv.Close()
			c := newClient(1)
			defer c.CloseIdleConnections()
			r := stream(context.Background(), c, &target{url: srv.URL, model: "m", proto: protocolOf(tc.target)}, nil)
			if tc.ok != (r.err == nil) {
				t.Fatalf("err = %v, want ok %v", r.err, tc.ok)
			}
			if r.chunks != 2 {
				t.Errorf("read %d content events, want 2", r.chunks)
			}
			// All but the blank line after the end event.
			if tc.ok && (r.duration <= 0 || r.bytes != int64(len(tc.answer)-1)) {
				t.Errorf("duration %v, %d bytes read of %d", r.duration, r.bytes, len(tc.answer))
			}
		})
	}
}

// TestCheckNginxRefusesImpostors: a binary that is not nginx is not
// reported as nginx.
func TestCheckNginxRefusesImpostors(t *testing.T) {
	if _, err := checkNginx("/bin/echo"); err == nil {
		t.Error("echo was taken for nginx")
	}
}

// TestPairedSpread: a build set against its base shows, beside the ratio
// of the medians, the lowest and highest ratio of one repeat's figures —
// for the proxy's own CPU and memory, with more than one repeat, and
// only against the base.
func TestPairedSpread(t *testing.T) {
	cpu := func(ms ...int) []figures {
		var fs []figures
		for _, m := range ms {
			fs = append(fs, figures{cpuPer1k: time.Duration(m) * time.Millisecond, perSec: 1000})
		}
		return fs
	}
	for _, tc := range []struct {
		name        string
		new, base   []figures
		want, avoid string
	}{
		{"three repeats", cpu(260, 250, 300), cpu(250, 250, 250),
			"ts-msg / ts-msg@base: c=64 CPU per 1k streams 1.04× (repeats 1.00–1.20×) · c=64 streams/s 1.00×", ""},
		{"one repeat", cpu(260), cpu(250),
			"ts-msg / ts-msg@base: c=64 CPU per 1k streams 1.04× · c=64 streams/s 1.00×", "repeats"},
		{"a base with no CPU read", cpu(260, 250), cpu(0, 250), "", "repeats"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &comparison{
				opts: compareOptions{Targets: []string{targetMsg, targetMsg + baseSuffix}, Scenarios: []string{scenC64}},
				results: map[string]map[string][]figures{
					targetMsg:              {scenC64: tc.new},
					targetMsg + baseSuffix: {scenC64: tc.base},
				},
			}
			var out bytes.Buffer
			c.ratios(&out)
			if tc.want != "" && !strings.Contains(out.String(), tc.want+"\n") {
				t.Errorf("ratios:\n%s\nwant the line %q", out.String(), tc.want)
			}
			if tc.avoid != "" && strings.Contains(out.String(), tc.avoid) {
				t.Errorf("ratios:\n%s\nhold %q", out.String(), tc.avoid)
			}
		})
	}
}
