package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/toolhost"
)

// Environment of the test binary when it runs as a stdio MCP server.
const (
	envStdioServer = "TOOLSTREAM_MCP_TEST_STDIO" // "1": be the server
	envStdioDir    = "TOOLSTREAM_MCP_TEST_DIR"   // where the server leaves and finds files
	envStdioChild  = "TOOLSTREAM_MCP_TEST_CHILD" // "1": start a child process that outlives the server
	// envStdioNoDiscover "1": exit when the first message is
	// server/discover, as stdio servers built on rmcp (the Rust SDK) do
	// at any request before initialize.
	envStdioNoDiscover = "TOOLSTREAM_MCP_TEST_NODISCOVER"
)

func TestMain(m *testing.M) {
	if os.Getenv(envStdioServer) == "1" {
		os.Exit(runStdioServer(os.Getenv(envStdioDir)))
	}
	// Without -v, go test shows no skip's reason: say once how to run it.
	if os.Getenv(envEverything) == "" && os.Getenv("CI") == "" {
		fmt.Println("toolhost/mcp: TestEverythingServer is skipped: " + envEverything + " is not set (bash .ci/run installs the reference MCP server and sets it)")
	}
	goleak.VerifyTestMain(m)
}

// runStdioServer is the test binary acting as a stdio MCP server the
// tests control through files in dir: a file "gate" makes it refuse to
// start (a crash loop); its tool hang writes "pid" once running, so a
// test can kill it mid-call.
func runStdioServer(dir string) int {
	if _, err := os.Stat(filepath.Join(dir, "gate")); err == nil {
		fmt.Fprintln(os.Stderr, "fatal error: gate closed, refusing to start")
		return 1
	}
	fmt.Fprintln(os.Stderr, "stdio test server started")
	if os.Getenv(envStdioChild) == "1" {
		// A launcher's child: it outlives its parent unless killed.
		child := exec.Command("sleep", "300")
		if err := child.Start(); err == nil {
			_ = os.WriteFile(filepath.Join(dir, "child"), []byte(fmt.Sprint(child.Process.Pid)), 0o600)
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: objectSchema(`{"text":{"type":"string"}}`, "text")},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return textResult("echo: " + in.Text), nil
		})
	s.AddTool(&mcp.Tool{Name: "hang", InputSchema: objectSchema(`{}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			_ = os.WriteFile(filepath.Join(dir, "pid"), []byte(fmt.Sprint(os.Getpid())), 0o600)
			<-ctx.Done()
			return textResult("cancelled"), nil
		})
	var t mcp.Transport = &mcp.StdioTransport{}
	if os.Getenv(envStdioNoDiscover) == "1" {
		in := bufio.NewReader(os.Stdin)
		first, _ := in.ReadString('\n')
		if strings.Contains(first, `"server/discover"`) {
			fmt.Fprintln(os.Stderr, "exiting: a request before initialize")
			return 0
		}
		t = &mcp.IOTransport{Reader: io.NopCloser(io.MultiReader(strings.NewReader(first), in)), Writer: os.Stdout}
	}
	if err := s.Run(context.Background(), t); err != nil {
		fmt.Fprintln(os.Stderr, "server ended:", err)
	}
	return 0
}

func objectSchema(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if len(required) == 0 {
		req = []byte("[]")
	}
	return json.RawMessage(`{"type":"object","properties":` + props + `,"required":` + string(req) + `}`)
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// logBuffer collects log output for assertions.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// fixture is a host with a manager on it.
type fixture struct {
	host *toolhost.Host
	m    *Manager
	log  *logBuffer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, Options{})
}

// newFixtureWith is newFixture with opts, whose backoff bounds and log
// the fixture sets.
func newFixtureWith(t *testing.T, opts Options) *fixture {
	t.Helper()
	host, err := toolhost.New(nil, toolhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lb := &logBuffer{}
	log := slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug}))
	opts.Log, opts.MinBackoff, opts.MaxBackoff = log, 20*time.Millisecond, 200*time.Millisecond
	m := New(host, opts)
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if got := mcpTools(host); len(got) != 0 {
			t.Errorf("after Close, MCP tools left: %v", got)
		}
		host.Close()
	})
	return &fixture{host: host, m: m, log: lb}
}

// mcpTools lists the registered MCP tools' names.
func mcpTools(h *toolhost.Host) []string {
	var out []string
	for _, t := range h.Tools() {
		if strings.HasPrefix(t.Source, toolhost.SourceMCPPrefix) {
			out = append(out, t.Name)
		}
	}
	return out
}

// state returns a server's state and whether it is configured.
func (f *fixture) state(name string) (State, bool) {
	for _, s := range f.m.States() {
		if s.Name == name {
			return s, true
		}
	}
	return State{}, false
}

// waitFor polls cond until it holds or a deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitUp waits for a server to be up with n tools.
func (f *fixture) waitUp(t *testing.T, name string, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%s up with %d tools", name, n), func() bool {
		s, _ := f.state(name)
		return s.Status == StatusUp && s.Tools == n
	})
}

func (f *fixture) call(ctx context.Context, name, args string) (toolhost.Result, error) {
	return f.host.Execute(ctx, toolhost.Call{ID: "call_test", Name: name, Arguments: json.RawMessage(args)})
}
