package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// stdioEntry runs this test binary as a stdio MCP server (TestMain).
func stdioEntry(t *testing.T, name, dir string) config.MCPServer {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return config.MCPServer{Name: name, Command: exe, Env: map[string]config.Secret{
		envStdioServer: "1", envStdioDir: config.Secret(dir),
	}}
}

// TestStdioCrashAndRestart kills the server mid-call: the call gets
// EXECUTION_FAILED, the tools leave at once and the status is down;
// while the server cannot start, it stays down (a crash loop, logged
// with backoff); once it can, it is restarted and the tools return.
func TestStdioCrashAndRestart(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t)
	f.m.Apply([]config.MCPServer{stdioEntry(t, "local", dir)}, time.Minute)
	f.waitUp(t, "local", 2)
	if res, err := f.call(context.Background(), "echo", `{"text":"hi"}`); err != nil || res.Content != "echo: hi" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	if !strings.Contains(f.log.String(), `msg="MCP server stderr" mcp_server=local line="stdio test server started"`) {
		t.Errorf("stderr line not logged with the server's name:\n%s", f.log.String())
	}

	// From now on the server refuses to start.
	if err := os.WriteFile(filepath.Join(dir, "gate"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan toolhost.Result, 1)
	go func() {
		res, _ := f.call(context.Background(), "hang", `{}`)
		done <- res
	}()
	var pid int
	waitFor(t, "the hang tool to run", func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "pid"))
		pid, _ = strconv.Atoi(string(b))
		return err == nil && pid > 0
	})
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.Err == nil || res.Err.Code != toolhost.CodeExecutionFailed || res.Err.Message != "MCP server local disconnected" {
		t.Errorf("call in flight = %+v, want EXECUTION_FAILED disconnected", res)
	}
	waitFor(t, "down with its tools gone", func() bool {
		s, _ := f.state("local")
		return s.Status == StatusDown && s.Tools == 0 && len(mcpTools(f.host)) == 0
	})
	// Several failed restarts, each one log line with backoff.
	waitFor(t, "failed restarts", func() bool { return strings.Count(f.log.String(), "MCP server down; reconnecting") >= 3 })
	if s, _ := f.state("local"); s.Status != StatusDown || !strings.Contains(s.Error, "connecting") {
		t.Errorf("state while it cannot start = %+v", s)
	}
	if res, _ := f.call(context.Background(), "echo", `{"text":"x"}`); res.Err == nil || res.Err.Code != toolhost.CodeToolNotFound {
		t.Errorf("echo while down = %+v, want TOOL_NOT_FOUND", res)
	}

	if err := os.Remove(filepath.Join(dir, "gate")); err != nil {
		t.Fatal(err)
	}
	f.waitUp(t, "local", 2)
	if res, err := f.call(context.Background(), "echo", `{"text":"back"}`); err != nil || res.Content != "echo: back" {
		t.Fatalf("echo after restart = %+v, %v", res, err)
	}
}

// TestApplyRestartsOnlyChanged: a changed entry restarts that server
// alone; a removed one is closed and its tools are gone.
func TestApplyRestartsOnlyChanged(t *testing.T) {
	f := newFixture(t)
	hs := newHTTPServer(t)
	a, b := stdioEntry(t, "a", t.TempDir()), stdioEntry(t, "b", t.TempDir())
	a.Prefix, b.Prefix = "a_", "b_"
	web := config.MCPServer{Name: "web", URL: hs.url, Tools: []string{"echo"}, Prefix: "w_"}
	f.m.Apply([]config.MCPServer{a, b, web}, time.Minute)
	for _, n := range []string{"a", "b"} {
		f.waitUp(t, n, 2)
	}
	f.waitUp(t, "web", 1)
	sinceA, _ := f.state("a")

	b.Timeout = 5 * time.Second // changed: restarted
	f.m.Apply([]config.MCPServer{a, b}, 2*time.Minute)
	f.waitUp(t, "b", 2)
	if s, _ := f.state("a"); s.Since != sinceA.Since || s.Status != StatusUp {
		t.Errorf("unchanged server a = %+v, was %+v: it was restarted", s, sinceA)
	}
	if _, ok := f.state("web"); ok {
		t.Error("removed server web still listed")
	}
	if _, ok := f.host.Lookup("w_echo"); ok {
		t.Error("removed server's tool still registered")
	}
	names := []string{}
	for _, s := range f.m.States() {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "a,b" {
		t.Errorf("States names = %v", names)
	}
	if res, err := f.call(context.Background(), "b_echo", `{"text":"1"}`); err != nil || res.Content != "echo: 1" {
		t.Errorf("b_echo = %+v, %v", res, err)
	}
}

// TestStdioChildrenStopped: a stdio server that started a process of its
// own (as npx and uvx do) takes it along when it stops: nothing is left
// running once the manager is closed.
func TestStdioChildrenStopped(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t)
	entry := stdioEntry(t, "launcher", dir)
	entry.Env[envStdioChild] = "1"
	f.m.Apply([]config.MCPServer{entry}, time.Minute)
	f.waitUp(t, "launcher", 2)
	var pid int
	waitFor(t, "the server's child to start", func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "child"))
		pid, _ = strconv.Atoi(string(b))
		return err == nil && pid > 0
	})
	if err := f.m.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the child to be gone", func() bool { return !running(pid) })
}

// running reports whether pid is a live process (not gone, not a zombie
// waiting to be reaped).
func running(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	// The state follows the command name's closing parenthesis.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestStdioExitsAtDiscover: a stdio server that exits at a request before
// initialize (rmcp's do, at the server/discover the SDK tries first) is
// started again at once for the initialize handshake, and stays on it.
func TestStdioExitsAtDiscover(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t)
	e := stdioEntry(t, "rust", dir)
	e.Env[envStdioNoDiscover] = "1"
	f.m.Apply([]config.MCPServer{e}, time.Minute)
	f.waitUp(t, "rust", 2)
	if res, err := f.call(context.Background(), "echo", `{"text":"hi"}`); err != nil || res.Content != "echo: hi" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	if strings.Contains(f.log.String(), "MCP server down") {
		t.Errorf("the server's exit at server/discover was logged as down:\n%s", f.log.String())
	}
}
