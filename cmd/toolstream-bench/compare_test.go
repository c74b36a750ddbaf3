package main

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCompareSmall runs compare at a size a test can afford, against the
// direct upstream and every toolstream target, and checks the report is
// sound: every stream read in full, CPU and memory read from /proc, and
// the table printed with its ratios. nginx is left out: CI need not have
// it, and the script that runs the real comparison installs it.
func TestCompareSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds toolstream")
	}
	bin := filepath.Join(t.TempDir(), "toolstream")
	if out, err := exec.Command("go", "build", "-o", bin, "../toolstream").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	o := compareOptions{
		Targets:   []string{targetDirect, targetPass, targetText, targetCall},
		Scenarios: []string{scenC1, scenC64, scenIdle},
		Repeats:   1, Chunks: 8, ChunkBytes: 16, C1Streams: 5, C64PerConn: 1, Idle: 20, Hold: 100 * time.Millisecond,
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
	if f := cmp.results[targetPass][scenIdle][0]; f.bytesPerStream == 0 {
		t.Errorf("ts-pass idle: memory per stream not read: %+v", f)
	}
	var out bytes.Buffer
	cmp.print(&out)
	for _, want := range []string{"| ts-text |", "ts-text / ts-pass: c=1 TTFT p50", "idle memory per stream"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestCheckNginxRefusesImpostors: a binary that is not nginx is not
// reported as nginx.
func TestCheckNginxRefusesImpostors(t *testing.T) {
	if _, err := checkNginx("/bin/echo"); err == nil {
		t.Error("echo was taken for nginx")
	}
}
