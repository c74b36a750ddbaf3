package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// serveChildEnv makes the test binary run toolstream itself with the
// arguments after its first, so a test can kill a real serve process.
const serveChildEnv = "TOOLSTREAM_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(serveChildEnv) != "" {
		os.Exit(run(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestCrashMidCallIsOutcomeUnknown: serve is killed with SIGKILL while a
// webhook holds a call — after the started record, before the result.
// After a restart the audit log shows the call outcome_unknown, and the
// webhook saw exactly one request: nothing ran it again.
func TestCrashMidCallIsOutcomeUnknown(t *testing.T) {
	var hits atomic.Int32
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hook.Close()
	defer close(release)

	call := "<tool_call>\n{\"name\": \"create_task\", \"arguments\": {\"title\": \"Gym\"}}\n</tool_call>"
	up := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "Adding it. ", call)})
	defer up.Close()

	dir := t.TempDir()
	addr := freeAddr(t)
	cfg := filepath.Join(dir, "toolstream.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`listen: %s
auth:
  admin_keys: ["sk-admin"]
storage:
  path: %s
upstreams:
  - name: up
    base_url: %s
    models: ["*"]
    tool_mode: text
tools:
  - name: create_task
    webhook: {url: "%s/create_task"}
`, addr, filepath.Join(dir, "data"), up.URL, hook.URL)), 0o644)

	first := startServe(t, cfg, addr)
	go func() {
		resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"add gym"}]}`))
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the webhook never got the call")
	}
	first.Process.Kill() // SIGKILL: no shutdown, no completed record
	first.Wait()

	second := startServe(t, cfg, addr)
	defer func() { second.Process.Signal(os.Interrupt); second.Wait() }()
	req, _ := http.NewRequest("GET", "http://"+addr+"/admin/calls", nil)
	req.Header.Set("Authorization", "Bearer sk-admin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Data []struct {
			Tool     string `json:"tool"`
			Status   string `json:"status"`
			Executed bool   `json:"executed"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 1 || page.Data[0].Status != "outcome_unknown" || !page.Data[0].Executed {
		t.Fatalf("audit log after the crash = %+v, want one executed call, outcome_unknown", page.Data)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("webhook requests = %d, want exactly 1", n)
	}
}

// startServe runs "toolstream serve FILE" as a child process and waits
// until it answers /healthz.
func startServe(t *testing.T, cfg, addr string) *exec.Cmd {
	t.Helper()
	// -test.run=^$ keeps a binary that somehow misses the variable from
	// running the tests again.
	cmd := exec.Command(os.Args[0], "-test.run=^$", "serve", "-config", cfg)
	cmd.Env = append(os.Environ(), serveChildEnv+"=1")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			return cmd
		}
		time.Sleep(20 * time.Millisecond) // polling a child process's port; bounded by ctx
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Fatal("serve did not come up")
	return nil
}

// freeAddr is a loopback address with a port nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
