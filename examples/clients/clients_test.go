// Package clients_test runs the client examples of this directory against
// the demo: the official OpenAI SDK, the AI SDK and LangChain JS from npm,
// and curl, each sending the demo's conversation to a real proxy and
// printing what it read.
package clients_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolstream/toolstream/examples/demo"
	"github.com/toolstream/toolstream/examples/internal/exampletest"
)

// TestMain says once, also without -v (which alone shows a skip's
// reason), why the client tests will be skipped here and how to run them.
func TestMain(m *testing.M) {
	var skips []string
	if why := nodeSkip(); why != "" {
		skips = append(skips, "the Node.js client tests are skipped: "+why)
	}
	if _, err := exec.LookPath("curl"); err != nil {
		skips = append(skips, "TestCurl is skipped: curl is not installed")
	}
	if len(skips) > 0 {
		fmt.Println("examples/clients: " + strings.Join(skips, "; "))
	}
	goleak.VerifyTestMain(m)
}

// envModules names the node_modules directory holding this directory's
// pinned packages; .ci/run installs them outside the repository and sets
// it.
const envModules = "TOOLSTREAM_CLIENTS_MODULES"

// TestClients sends the demo conversation through each client and checks
// what it printed: the model's text from both rounds and a card per tool
// call, collapsed and expanded.
func TestClients(t *testing.T) {
	modules := nodeModules(t)
	base := startDemo(t)

	// The scripted model announces the tasks, calls create_task three
	// times, and answers from the results in a second round.
	text := []string{
		"assistant ▸ Sure — I'll put those three on your board for tomorrow.",
		"assistant ▸ Done! I created 3 tasks for tomorrow",
		"Buy groceries\n", "Call the plumber\n", "Renew my passport\n",
		"── finish_reason stop · 3 tool calls · ",
	}
	tests := []struct {
		name   string
		script string
		args   []string
		want   []string
		// cards is the card line each of the three calls must print.
		cards string
	}{
		{"openai", "openai.mjs", nil, text, "▸ create_task ✓ "},
		{"openai expanded", "openai.mjs", []string{"--expand"}, append(text,
			`    arguments  {"title":"Buy groceries","due":"`,
			`    result     {"id":`,
		), "▾ create_task ✓ "},
		{"ai-sdk", "ai-sdk.mjs", nil, text, "▸ create_task ✓ "},
		{"ai-sdk expanded", "ai-sdk.mjs", []string{"-e"}, append(text,
			`    arguments  {"title":"Renew my passport","due":"`,
			`    result     {"id":`,
		), "▾ create_task ✓ "},
		{"langchain", "langchain.mjs", nil, text, "▸ create_task ✓ "},
		{"langchain expanded", "langchain.mjs", []string{"--expand"}, append(text,
			`    arguments  {"title":"Call the plumber","due":"`,
			`    result     {"id":`,
		), "▾ create_task ✓ "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := runNode(t, modules, base, tt.script, tt.args...)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q\n%s", w, out)
				}
			}
			if n := strings.Count(out, "\n"+tt.cards); n != 3 {
				t.Errorf("%d cards %q, want one per call (3)\n%s", n, tt.cards, out)
			}
			if strings.Contains(out, "<tool_call>") || strings.Contains(out, `"toolstream"`) {
				t.Errorf("tool markup or raw events reached the rendering:\n%s", out)
			}
		})
	}
}

// TestCurl runs curl.sh: the raw stream, tool events and all.
func TestCurl(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	base := startDemo(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "curl.sh")
	cmd.Env = append(os.Environ(), "TOOLSTREAM_BASE_URL="+base)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("curl.sh: %v\n%s", err, out)
	}
	for _, w := range []string{
		`"toolstream":{"event":"tool.started"`, `"name":"create_task"`,
		`"event":"tool.finished"`, `"status":"ok"`, `"finish_reason":"stop"`, "data: [DONE]",
	} {
		if !bytes.Contains(out, []byte(w)) {
			t.Errorf("curl.sh output lacks %s\n%s", w, out)
		}
	}
}

// nodeModules returns the node_modules directory with the pinned
// packages: envModules, or else an install of package-lock.json into the
// user's cache with npm ci. It skips when neither can be had.
func nodeModules(t *testing.T) string {
	t.Helper()
	if why := nodeSkip(); why != "" {
		t.Skip(why)
	}
	if dir := os.Getenv(envModules); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "openai", "package.json")); err != nil {
			t.Fatalf("%s=%s does not hold the pinned packages: %v", envModules, dir, err)
		}
		return dir
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not set: .ci/run installs examples/clients/package-lock.json and sets it", envModules)
	}
	cache, _ := os.UserCacheDir() // nodeSkip made sure there is one
	dir := filepath.Join(cache, "toolstream-ci", "clients")
	lock, err := os.ReadFile("package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if have, _ := os.ReadFile(filepath.Join(dir, "package-lock.json")); !bytes.Equal(have, lock) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"package.json", "package-lock.json"} {
			b, err := os.ReadFile(f)
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, f), b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.CommandContext(t.Context(), "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			os.Remove(filepath.Join(dir, "package-lock.json")) // try again next time
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	return filepath.Join(dir, "node_modules")
}

// nodeSkip says why the Node.js tests cannot run here, or "" when they
// can: node is there, and so are the pinned packages (envModules) or npm
// and a cache directory to install them into. In CI a missing envModules
// is a failure, not a skip.
func nodeSkip() string {
	if _, err := exec.LookPath("node"); err != nil {
		return "node is not installed: the npm client examples need Node.js 20 or later"
	}
	if os.Getenv(envModules) != "" || os.Getenv("CI") != "" {
		return ""
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return fmt.Sprintf("%s is not set and npm is not installed: run bash .ci/run, or npm ci in examples/clients and set %s to its node_modules", envModules, envModules)
	}
	if _, err := os.UserCacheDir(); err != nil {
		return fmt.Sprintf("%s is not set and there is no cache directory to install into: %v", envModules, err)
	}
	return ""
}

// runNode runs script with the pinned packages against base and returns
// what it printed. The script and cards.mjs are copied next to a link to
// modules, since ES modules find packages only in a node_modules beside
// or above them.
func runNode(t *testing.T, modules, base, script string, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{script, "cards.mjs"} {
		b, err := os.ReadFile(f)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, f), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{script}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TOOLSTREAM_BASE_URL="+base, "NO_COLOR=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\nstdout:\n%s\nstderr:\n%s", script, err, out, stderr.String())
	}
	return string(out)
}

// startDemo runs `toolstream demo -listen` on a free loopback port until
// the test ends and returns its API base URL.
func startDemo(t *testing.T) string {
	t.Helper()
	addr := exampletest.FreeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	out := &exampletest.SyncBuffer{}
	done := make(chan error, 1)
	go func() { done <- demo.Run(ctx, demo.Options{Out: out, Listen: addr}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("demo: %v\n%s", err, out)
		}
	})
	base := "http://" + addr + "/v1"
	// No keep-alive: an idle connection's goroutines would outlive the test.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-done:
			done <- err // for the cleanup
			t.Fatalf("demo stopped before serving: %v\n%s", err, out)
		default:
		}
		resp, err := client.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("demo not serving on %s after 30s: %v\n%s", addr, err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
