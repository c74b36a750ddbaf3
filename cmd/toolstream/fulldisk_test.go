package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// tmpfs mounts a tmpfs of size (mount's spelling: "80m") on a new
// directory, unmounted when the test ends; it skips the test where
// mounting is not allowed (not root, no tmpfs).
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	// Lazy: a process of the test may still hold files there.
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fill writes zeros into dir/fill until its filesystem is full, as
// `dd if=/dev/zero of=dir/fill` does.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			return // ENOSPC
		}
	}
}

// fullDiskConfig writes a config with storage on dir, a text-mode
// upstream that calls create_task in a turn's first round and answers in
// its second, and create_task's webhook, which counts its requests.
func fullDiskConfig(t *testing.T, dir string) (file string, hits *atomic.Int32) {
	t.Helper()
	hits = new(atomic.Int32)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(hook.Close)
	call := "<tool_call>\n{\"name\": \"create_task\", \"arguments\": {\"title\": \"Gym\"}}\n</tool_call>"
	up := upstreamtest.NewFunc(func(r upstreamtest.Request) upstreamtest.Round {
		if strings.Contains(string(r.Body), "Adding it.") { // the second round
			return upstreamtest.Round{Events: upstreamtest.Text("c2", "m", "Done or not.")}
		}
		return upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "Adding it. ", call)}
	})
	t.Cleanup(up.Close)
	file = filepath.Join(t.TempDir(), "toolstream.yaml")
	writeFile(t, file, `listen: 127.0.0.1:0
storage:
  path: `+filepath.Join(dir, "data")+`
upstreams:
  - name: up
    base_url: `+up.URL+`
    models: ["*"]
    tool_mode: text
tools:
  - name: create_task
    webhook: {url: "`+hook.URL+`"}
`)
	return file, hits
}

// TestFullDiskFailsTheCallNotTheProcess: with storage.path on a filesystem
// filled after start-up, every tool call is answered EXECUTION_FAILED
// without running, each stream ends properly, /readyz says the storage is
// full and toolstream_storage_errors_total counts the refused writes.
// Before, a call ran on the full disk (here the first turn's did: its
// write still fit a page badger's log had touched), and the first write
// that needed a new page killed the process with SIGBUS, its stream cut
// with no error event.
func TestFullDiskFailsTheCallNotTheProcess(t *testing.T) {
	dir := tmpfs(t, "80m") // room for the 64 MiB the store keeps free
	file, hits := fullDiskConfig(t, dir)
	p := startServe(t, file)
	fill(t, dir)

	for i := range 5 {
		events := p.open(t, "add gym").rest(t)
		if !done(events) || !strings.Contains(strings.Join(events, "\n"), `"EXECUTION_FAILED"`) {
			t.Fatalf("turn %d on a full disk = %q, want EXECUTION_FAILED and [DONE]\n%s", i+1, events, p.log)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("webhook requests = %d, want none: no call could be put on record", n)
	}
	resp, err := http.Get(p.url + "/readyz")
	if err != nil {
		t.Fatalf("readyz: %v\n%s", err, p.log)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "free") {
		t.Errorf("readyz = %d %s, want 503 naming the free space", resp.StatusCode, body)
	}
	resp, err = http.Get(p.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(body), "toolstream_storage_errors_total 0") ||
		!strings.Contains(string(body), "toolstream_storage_errors_total ") {
		t.Errorf("metrics lack the storage errors:\n%s", grepLines(string(body), "storage"))
	}
}

// TestServeOnFullDisk: serve restarted on a store whose filesystem is now
// full (the last process died, as it did of SIGBUS) exits 1 with a message
// saying so and what to do. Before, badger.Open died of SIGBUS replaying
// its log (exit 2, a goroutine dump, no message), and a supervisor
// restarted it into the same death.
func TestServeOnFullDisk(t *testing.T) {
	dir := tmpfs(t, "80m")
	file, _ := fullDiskConfig(t, dir)
	first := startServe(t, file)
	first.signal(t, syscall.SIGKILL)
	first.exit(t)
	fill(t, dir)

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), exe, "serve", file)
	cmd.Env = append(os.Environ(), "TOOLSTREAM_TEST_MAIN=1", "TOOLSTREAM_CONFIG=", "TOOLSTREAM_LISTEN=")
	out, err := cmd.CombinedOutput()
	code := cmd.ProcessState.ExitCode()
	if code != exitFail || !strings.Contains(string(out), "free some space") || strings.Contains(string(out), "SIGBUS") {
		t.Fatalf("serve on a full disk: exit %d (%v), output:\n%.2000s\nwant exit %d and a message saying the disk is full", code, err, out, exitFail)
	}
	t.Log(strings.TrimSpace(string(out)))
}

// grepLines returns the lines of s containing sub.
func grepLines(s, sub string) string {
	var out []string
	for l := range strings.Lines(s) {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}
