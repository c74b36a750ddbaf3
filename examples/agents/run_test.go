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

	"github.com/toolstream/toolstream/examples/internal/exampletest"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// agentTimeout bounds one agent run.
const agentTimeout = 2 * time.Minute

// prompt is what each agent is asked.
const prompt = "Run the shell command the build needs, then fetch today's build token and tell me what it is."

// agent is one coding agent under test.
type agent struct {
	// name names its fixtures (testdata/NAME/) and subtests.
	name string
	// bin is its command in node_modules/.bin.
	bin string
	// shell is its shell tool as the model sees it, and shellArgs the
	// JSON arguments of a call that prints shellOutput.
	shell, shellArgs string
	// setup writes the agent's configuration under r.home and returns its
	// arguments and environment for a run against r.
	setup func(t *testing.T, r *agentRun) (args, env []string)
}

// agents are the agents every test runs.
var agents = []agent{qwen, opencode, pi, claude, codex}

// agentRun is one run of an agent: where it lives, and where it sends
// its requests.
type agentRun struct {
	// home is the agent's HOME, fresh per run; work is its working
	// directory.
	home, work string
	// base is the tap's URL in front of serve, without /v1; model is
	// the model name it asks for, and prompt what it is asked.
	base, model, prompt string
	modules             string
}

// result is what one run left: the agent's output, what it sent, what
// reached the model, and how often the server tool ran.
type result struct {
	out      string
	sent     []tapped
	upstream []upstreamtest.Request
	// calls are the bodies of the calls the webhook tool got.
	calls []string
	proxy *proxy
	// work is the agent's working directory; token get_token's answer.
	work, token string
	// err is set when the agent exited with an error.
	err error
}

// run says how to run an agent: in which mode, with which steps of the
// scripted model, and with what added to serve's and the agent's setup.
type run struct {
	// model is nativeModel or textModel.
	model string
	// steps are the scripted model's calls; nil runs the agent's shell,
	// then get_token. more are the steps of other requests the agent
	// makes (its web search's own request, say), each followed when its
	// first tool is offered.
	steps []step
	more  [][]step
	// config is serve's config file; "" is toolstream.yaml.
	config string
	// env is added to the agent's environment.
	env []string
}

// runAgent runs a through serve in front of the scripted model, and
// returns what it left. An agent that takes over two minutes is stopped.
func runAgent(t *testing.T, a agent, o run) result {
	t.Helper()
	modules := needAgents(t)
	token := fmt.Sprintf("tok-%s-%s-%d", a.name, strings.TrimSuffix(o.model, "-model"), time.Now().UnixNano()%1e6)
	if o.steps == nil {
		o.steps = []step{
			{tool: named(a.shell), args: a.shellArgs, expect: shellOutput},
			{tool: named("get_token"), args: `{}`, expect: token},
		}
	}
	sc := &script{plans: append([][]step{o.steps}, o.more...)}
	up := upstreamtest.NewFunc(sc.round)
	t.Cleanup(up.Close)
	up.SetModels(nativeModel, textModel)
	tool := newTokenTool(t, token)
	if o.config == "" {
		o.config = "toolstream.yaml"
	}
	p := startServe(t, o.config, up.URL, tool.URL)
	tp := newTap(t, p.URL)

	r := &agentRun{home: t.TempDir(), work: t.TempDir(), base: tp.URL, model: o.model, prompt: prompt, modules: modules}
	out, err := execAgent(t, a, r, o.env...)
	res := result{out: out, sent: tp.requests(), upstream: up.Requests(), calls: tool.received(), proxy: p, work: r.work, token: token, err: err}
	// A stock agent's request is never refused for something new.
	for _, line := range strings.Split(p.log.String(), "\n") {
		if strings.Contains(line, `msg="request refused`) {
			t.Errorf("serve refused a request of %s: %s", a.name, line)
		}
	}
	if *record && o.model == nativeModel && o.config == "toolstream.yaml" && o.env == nil && res.err == nil {
		saveRecording(t, a.name, res.sent, r)
	}
	return res
}

// execAgent runs a once as r says, with env added to its environment,
// and returns its output, or an error with its output and the end of
// what it logged. An agent that takes longer than agentTimeout is
// stopped.
func execAgent(t *testing.T, a agent, r *agentRun, env ...string) (string, error) {
	t.Helper()
	args, own := a.setup(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(r.modules, ".bin", a.bin), args...)
	cmd.Dir = r.work
	cmd.Env = append(append([]string{
		"HOME=" + r.home,
		// Node 22 from the pinned node package first: Claude Code and
		// Qwen Code need it.
		"PATH=" + filepath.Join(r.modules, ".bin") + ":/usr/local/bin:/usr/bin:/bin",
		"TERM=dumb",
		"NO_COLOR=1",
		"CI=1",
	}, own...), env...)
	cmd.WaitDelay = 5 * time.Second
	var out, errs exampletest.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", a.bin, strings.Join(args, " "), err, &out, tail(errs.String(), 4000))
	}
	return out.String(), nil
}

// threeRounds runs the turn every agent must complete and checks it
// (checkTurn). It returns the run for further checks.
func threeRounds(t *testing.T, a agent, o run) result {
	res := runAgent(t, a, o)
	checkTurn(t, res)
	return res
}

// checkTurn checks a run whose last step was get_token: the agent exited
// well, the server tool ran once, and the answer holds its token.
func checkTurn(t *testing.T, res result) {
	t.Helper()
	if res.err != nil {
		t.Fatal(res.err)
	}
	if !strings.Contains(res.out, res.token) {
		t.Errorf("the answer has no token %s:\n%s", res.token, res.out)
	}
	if len(res.calls) != 1 {
		t.Errorf("get_token ran %d times, want once", len(res.calls))
	}
}

// TestThreeRounds runs each agent's turn — its shell tool, the server
// tool, the answer — in native and in text mode, the runs in parallel.
// What an agent offers that toolstream leaves out (Codex's unbound
// web_search) is logged once, however many requests offer it.
func TestThreeRounds(t *testing.T) {
	for _, a := range agents {
		for _, model := range []string{nativeModel, textModel} {
			t.Run(a.name+"/"+strings.TrimSuffix(model, "-model"), func(t *testing.T) {
				t.Parallel()
				res := threeRounds(t, a, run{model: model})
				if a.name != codex.name {
					return
				}
				if n := strings.Count(res.proxy.log.String(), `left_out="hosted tool web_search"`); n != 1 {
					t.Errorf("the unbound web_search was logged as left out %d times, want once:\n%s", n, res.proxy.log)
				}
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
