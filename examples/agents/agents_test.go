// Package agents_test runs real coding agents — Codex, Claude Code, Qwen
// Code, opencode and pi, each at the version package-lock.json pins —
// through toolstream serve (the built binary, with toolstream.yaml) in
// front of a scripted model (model_test.go), in native and in text mode.
// Each agent runs its own shell tool once and the proxy's server tool
// once, and its final answer must hold the server tool's result
// (run_test.go); Codex and Claude Code go on to their MCP servers,
// apply_patch, tool search and web search (codex_test.go,
// claude_test.go); and each asks the demo what is on the task board
// (demo_test.go).
//
// The agents may not reach the internet: the whole test binary re-executes
// itself inside a network namespace of its own (unshare -n, loopback up),
// so serve, the scripted model and the agents share a loopback nothing else
// can reach, and nothing can reach out.
//
// .ci/run installs the agents and sets TOOLSTREAM_AGENTS_MODULES and
// TOOLSTREAM_REQUIRE_AGENTS; without them, the agent tests are skipped and
// say why. The fixture tests (fixtures_test.go) need no agent: they replay
// each agent's recorded request into serve and compare what reaches the
// model with a golden file.
package agents_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

const (
	// envModules names the node_modules directory holding the pinned
	// agents and Node 22 (package.json here); .ci/run sets it.
	envModules = "TOOLSTREAM_AGENTS_MODULES"
	// envRequire, when set, makes a missing agent or namespace a failure
	// instead of a skip, as in CI.
	envRequire = "TOOLSTREAM_REQUIRE_AGENTS"
	// envInside marks the test binary re-executed inside the namespace.
	envInside = "TOOLSTREAM_AGENTS_NETNS"
	// envServe is the built toolstream binary, handed to the re-executed
	// binary (the namespace cannot reach the module proxy to build it).
	// Set by hand, it runs that binary instead of building one.
	envServe = "TOOLSTREAM_AGENTS_SERVE"
)

// skipAgents is why the agent tests are skipped here, or "" when they run.
var skipAgents string

// serveBin is the toolstream binary the tests run.
var serveBin string

func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv(envInside) != "" {
		serveBin = os.Getenv(envServe)
		os.Exit(runTests(m))
	}
	dir, err := os.MkdirTemp("", "toolstream-agents-")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		serveBin = os.Getenv(envServe)
		if serveBin == "" {
			serveBin = filepath.Join(dir, "toolstream")
			build := exec.Command("go", "build", "-o", serveBin, "github.com/toolstream/toolstream/cmd/toolstream")
			if out, err := build.CombinedOutput(); err != nil {
				fmt.Printf("building toolstream: %v\n%s", err, out)
				return 1
			}
		}
		skipAgents = agentsMissing()
		if skipAgents == "" {
			return inNamespace()
		}
		if os.Getenv(envRequire) != "" {
			fmt.Println("examples/agents: the agent tests cannot run: " + skipAgents)
			return 1
		}
		fmt.Println("examples/agents: the agent tests are skipped: " + skipAgents)
		return runTests(m)
	}()
	os.Exit(code)
}

// runTests runs the tests and then looks for goroutines they left behind.
func runTests(m *testing.M) int {
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Println("goleak:", err)
			return 1
		}
	}
	return code
}

// agentsMissing says why the agents cannot run here, or "".
func agentsMissing() string {
	dir := os.Getenv(envModules)
	if dir == "" {
		return envModules + " is not set (.ci/run installs the pinned agents from examples/agents/package-lock.json and sets it)"
	}
	for _, a := range agents {
		if _, err := os.Stat(filepath.Join(dir, ".bin", a.bin)); err != nil {
			return fmt.Sprintf("%s has no %s: %v", envModules, a.bin, err)
		}
	}
	// As root, a network namespace alone; as anyone else, inside a user
	// namespace of its own where the user is root.
	var failed []string
	for _, flags := range [][]string{{"-n"}, {"-r", "-n"}} {
		out, err := exec.Command("unshare", append(flags, "sh", "-c", "ip link set lo up")...).CombinedOutput()
		if err == nil {
			unshareFlags = flags
			return ""
		}
		failed = append(failed, fmt.Sprintf("unshare %s: %v %s", strings.Join(flags, " "), err, strings.TrimSpace(string(out))))
	}
	return "no network namespace with loopback up (it needs unshare, iproute2, and root or user namespaces): " + strings.Join(failed, "; ")
}

// unshareFlags are the flags of unshare that worked here.
var unshareFlags []string

// inNamespace runs this test binary again, with the same flags, inside a
// network namespace whose loopback is up, and returns its exit code.
func inNamespace() int {
	args := append(unshareFlags, "sh", "-c", `ip link set lo up && exec "$0" "$@"`, os.Args[0])
	cmd := exec.Command("unshare", append(args, os.Args[1:]...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), envInside+"=1", envServe+"="+serveBin)
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Println("unshare:", err)
		return 1
	}
	return 0
}

// needAgents skips t when the agents cannot run here.
func needAgents(t *testing.T) string {
	t.Helper()
	if skipAgents != "" {
		t.Skip(skipAgents)
	}
	return os.Getenv(envModules)
}
