package agents_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// prompt is what each agent is asked.
const prompt = "Run the shell command the build needs, then fetch today's build token and tell me what it is."

// agent is one coding agent under test.
type agent struct {
	// name names its fixtures (testdata/NAME.*) and subtests.
	name string
	// bin is its command in node_modules/.bin.
	bin string
	// shell is its shell tool as the model sees it, and shellArgs the
	// JSON arguments of a call running shellCommand.
	shell, shellArgs string
	// setup writes the agent's configuration under r.home and returns its
	// arguments and environment for a run against r.
	setup func(t *testing.T, r *agentRun) (args, env []string)
}

// agents are the agents the tests run, in the order they are reported.
var agents = []agent{qwen, opencode, pi, claude}

// agentRun is one run of an agent: where it lives, and where it sends
// its requests.
type agentRun struct {
	// home is the agent's HOME, fresh per run; work is its working
	// directory.
	home, work string
	// base is the tap's URL in front of serve, without /v1; model is
	// the model name it asks for.
	base, model string
	modules     string
}

// result is what one run left: the agent's output, what it sent, what
// reached the model, and how often the server tool ran.
type result struct {
	out      string
	sent     []tapped
	upstream []upstreamtest.Request
	calls    int
	proxy    *proxy
	// err is set when the agent exited with an error.
	err error
}

// runAgent runs a in one mode (nativeModel or textModel) through serve in
// front of the scripted model, and returns what it left. An agent that
// takes over two minutes is stopped.
func runAgent(t *testing.T, a agent, model string, extraServe ...string) result {
	t.Helper()
	modules := needAgents(t)
	token := fmt.Sprintf("tok-%s-%s-%d", a.name, strings.TrimSuffix(model, "-model"), time.Now().UnixNano()%1e6)
	sc := &script{shell: a.shell, args: a.shellArgs, token: token}
	up := upstreamtest.NewFunc(sc.round)
	t.Cleanup(up.Close)
	up.SetModels(nativeModel, textModel)
	tool := newTokenTool(t, token)
	p := startServe(t, up.URL, tool.URL, extraServe...)
	tp := newTap(t, p.URL)

	r := &agentRun{home: t.TempDir(), work: t.TempDir(), base: tp.URL, model: model, modules: modules}
	args, env := a.setup(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(modules, ".bin", a.bin), args...)
	cmd.Dir = r.work
	cmd.Env = append([]string{
		"HOME=" + r.home,
		// Node 22 from the pinned node package first: Claude Code and
		// Qwen Code need it.
		"PATH=" + filepath.Join(modules, ".bin") + ":/usr/local/bin:/usr/bin:/bin",
		"TERM=dumb",
		"NO_COLOR=1",
		"CI=1",
	}, env...)
	cmd.WaitDelay = 5 * time.Second
	var out, errs syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	res := result{out: out.String(), sent: tp.requests(), upstream: up.Requests(), calls: int(tool.calls.Load()), proxy: p}
	if err != nil {
		res.err = fmt.Errorf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", a.bin, strings.Join(args, " "), err, &out, tail(errs.String(), 4000))
	}
	if *record && model == nativeModel && res.err == nil {
		saveRecording(t, a.name, res.sent, r)
	}
	return res
}

// threeRounds checks the turn every agent must complete: the shell ran
// once, the server tool once, and the answer holds its token.
func threeRounds(t *testing.T, a agent, model string) {
	res := runAgent(t, a, model)
	if res.err != nil {
		t.Fatal(res.err)
	}
	token := fmt.Sprintf("tok-%s-%s-", a.name, strings.TrimSuffix(model, "-model"))
	if !strings.Contains(res.out, token) {
		t.Errorf("the answer has no %s… token:\n%s", token, res.out)
	}
	if res.calls != 1 {
		t.Errorf("get_token ran %d times, want once", res.calls)
	}
	shells := 0
	for _, u := range res.upstream {
		if strings.Contains(string(u.Body), shellOutput) && !strings.Contains(string(u.Body), "tok-") {
			shells++
		}
	}
	if shells == 0 {
		t.Errorf("no request to the model holds the shell's output %q: the agent did not run %s", shellOutput, a.shell)
	}
}

// TestThreeRounds runs each agent's turn — its shell tool, the server
// tool, the answer — in native and in text mode, the runs in parallel.
func TestThreeRounds(t *testing.T) {
	for _, a := range agents {
		for _, model := range []string{nativeModel, textModel} {
			t.Run(a.name+"/"+strings.TrimSuffix(model, "-model"), func(t *testing.T) {
				t.Parallel()
				threeRounds(t, a, model)
			})
		}
	}
}

// writeFile writes data to path under dir, making its directories.
func writeFile(t *testing.T, dir, path, data string) {
	t.Helper()
	p := filepath.Join(dir, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
