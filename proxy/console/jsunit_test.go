package console_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestJSUnit runs the console's JavaScript unit tests (unit/*.test.mjs:
// the stream parser, the live-state reducer, the usage chart's scale, the
// argument edit's checks …) with node --test, which needs nothing
// installed. Without Node it skips, unless the environment says the
// console's tests are set up (.ci/run sets TOOLSTREAM_PLAYWRIGHT_MODULES),
// where a missing node is a broken setup.
func TestJSUnit(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv(envModules) != "" {
			t.Fatalf("%s is set but node is not on PATH: the console's JavaScript unit tests need Node.js", envModules)
		}
		t.Skip("the console's JavaScript unit tests need Node.js (node --test): install Node 20 or later")
	}
	files, err := filepath.Glob(filepath.Join("unit", "*.test.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no unit/*.test.mjs (%v)", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	// Node 20 takes files, not a folder or a glob.
	cmd := exec.CommandContext(ctx, "node", append([]string{"--test", "--test-reporter=tap"}, files...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("node --test %v: %v\n%s", files, err, out.String())
	}
	if testing.Verbose() {
		t.Log(out.String())
	}
}
