package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Where the browser test finds what it needs; .ci/run installs both and
// sets these.
const (
	envModules   = "TOOLSTREAM_PLAYWRIGHT_MODULES" // node_modules with e2e/package-lock.json's playwright-core
	envChromium  = "TOOLSTREAM_CHROMIUM"           // a Chromium binary (Debian's chromium package)
	envArtifacts = "TOOLSTREAM_ARTIFACTS"          // where screenshots go; a temp dir when unset
)

// TestBrowser drives the console in headless Chromium, one scenario per
// run of e2e/console.e2e.mjs against a fresh proxy; the script checks the
// page through its hooks (data-role, data-call-id, data-status, labels),
// and the test checks what the tools and the model were sent.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser test is not short")
	}
	modules, chromium := browserDeps(t)
	artifacts := os.Getenv(envArtifacts)
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		check func(t *testing.T, env *consoleEnv)
	}{
		{"two-tools", func(t *testing.T, env *consoleEnv) {
			if n := env.hooks.count("get_weather"); n != 2 {
				t.Errorf("get_weather ran %d times, want 2", n)
			}
			// The second turn carried the whole conversation: the first
			// question and answer came back with it.
			reqs := env.chats()
			last := string(reqs[len(reqs)-1].Body)
			for _, w := range []string{"What's the weather in Paris and Oslo?", "Oslo has snow", "Thanks!"} {
				if !strings.Contains(last, w) {
					t.Errorf("the last turn's request lacks %q:\n%s", w, last)
				}
			}
		}},
		{"approve", func(t *testing.T, env *consoleEnv) {
			if n := env.hooks.count("delete_task"); n != 1 {
				t.Errorf("delete_task ran %d times, want once, after the approval", n)
			}
		}},
		{"edit", func(t *testing.T, env *consoleEnv) {
			if n, args := env.hooks.count("delete_task"), env.hooks.lastArguments("delete_task"); n != 1 || args != `{"id":8}` {
				t.Errorf("delete_task ran %d times, last with %s; want once, with the edit {\"id\":8}", n, args)
			}
			reqs := env.chats()
			if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "changed its arguments") {
				t.Errorf("the model was not told of the edit:\n%s", last)
			}
		}},
		{"deny", func(t *testing.T, env *consoleEnv) {
			if n := env.hooks.count("delete_task"); n != 0 {
				t.Errorf("delete_task ran %d times after a deny", n)
			}
			reqs := env.chats()
			if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "not that one") {
				t.Errorf("the model was not told the deny's reason:\n%s", last)
			}
		}},
		{"stop", func(t *testing.T, env *consoleEnv) {
			select {
			case <-env.hooks.cancelled:
			case <-time.After(10 * time.Second):
				t.Error("Stop did not cancel the held webhook request")
			}
			if n := env.hooks.count("get_weather"); n != 0 {
				t.Errorf("the call queued behind the held one ran %d times", n)
			}
			if n := len(env.chats()); n != 1 {
				t.Errorf("the model got %d rounds, want 1: a stopped turn starts no other", n)
			}
		}},
		{"long", func(t *testing.T, env *consoleEnv) {
			if n := len(env.chats()); n != 9+4 {
				t.Errorf("the model got %d requests, want 13: 9 turns, 4 of them with a tool round", n)
			}
		}},
		{"keys", func(t *testing.T, env *consoleEnv) {
			if n, m := env.hooks.count("get_weather"), env.hooks.count("delete_task"); n != 2 || m != 0 {
				t.Errorf("get_weather ran %d times, delete_task %d; want 2 and 0 (the narrowed key has no delete_task)", n, m)
			}
			if n := len(env.chats()); n != 4 {
				t.Errorf("the model got %d requests, want 4: the revoked key's turn reaches no model", n)
			}
		}},
		{"live", func(t *testing.T, env *consoleEnv) {
			// Once approved from the Live view with an edit, once from
			// the chat as the model wrote it.
			if got := strings.Join(env.hooks.allArguments("delete_task"), " "); got != `{"id":9} {"id":7}` {
				t.Errorf("delete_task ran with %s; want {\"id\":9} (the Live view's edit), then {\"id\":7}", got)
			}
		}},
		{"sentence", func(t *testing.T, env *consoleEnv) {
			if n := env.hooks.count("get_weather"); n != 1 {
				t.Errorf("get_weather ran %d times, want once", n)
				for _, r := range env.chats() {
					t.Logf("%s", r.Body)
				}
			}
		}},
		{"markdown", func(t *testing.T, env *consoleEnv) {
			if n := env.hooks.count("get_weather"); n != 2 {
				t.Errorf("get_weather ran %d times, want 2", n)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := startConsole(t)
			out := runScript(t, modules, chromium, artifacts, env, tt.name)
			for _, line := range strings.Split(out, "\n") {
				if p, ok := strings.CutPrefix(line, "screenshot "); ok {
					t.Logf("screenshot: %s", p)
				}
			}
			tt.check(t, env)
		})
	}
}

// browserDeps finds playwright-core and Chromium, or skips saying how to
// get them. What the environment names must be there: a wrong path is a
// broken setup, not a reason to skip.
func browserDeps(t *testing.T) (modules, chromium string) {
	t.Helper()
	const how = "the console's browser test needs Node.js, Chromium and playwright-core: run .ci/run, or apt-get install chromium, npm ci in proxy/console/e2e and set " +
		envChromium + " and " + envModules
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip(how)
	}
	missing := t.Skip
	modules = os.Getenv(envModules)
	if modules != "" {
		missing = t.Fatal
	} else if cache, err := os.UserCacheDir(); err == nil {
		modules = filepath.Join(cache, "toolstream-ci", "console-e2e", "node_modules")
	}
	lock, err := os.ReadFile(filepath.Join("e2e", "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pinned struct {
		Packages map[string]struct{ Version string } `json:"packages"`
	}
	if err := json.Unmarshal(lock, &pinned); err != nil {
		t.Fatal(err)
	}
	want := pinned.Packages["node_modules/playwright-core"].Version
	installed, err := os.ReadFile(filepath.Join(modules, "playwright-core", "package.json"))
	if err != nil || !bytes.Contains(installed, []byte(`"version": "`+want+`"`)) {
		missing(fmt.Sprintf("no playwright-core %s in %s; %s", want, modules, how))
	}
	if chromium = os.Getenv(envChromium); chromium != "" {
		if _, err := exec.LookPath(chromium); err != nil {
			t.Fatalf("%s=%s: %v", envChromium, chromium, err)
		}
		return modules, chromium
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return modules, p
		}
	}
	t.Skip(how)
	return "", ""
}

// runScript runs one scenario of e2e/console.e2e.mjs and returns what it
// printed; a failed check fails the test with the script's report.
func runScript(t *testing.T, modules, chromium, artifacts string, env *consoleEnv, scenario string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "console.e2e.mjs", scenario)
	cmd.Dir = "e2e"
	cmd.Env = append(os.Environ(),
		"TOOLSTREAM_CONSOLE_URL="+env.url,
		"TOOLSTREAM_HOOKS_URL="+env.hooks.srv.URL,
		"TOOLSTREAM_API_KEY="+clientKey,
		"TOOLSTREAM_ADMIN_KEY="+adminKey,
		envModules+"="+modules,
		envChromium+"="+chromium,
		envArtifacts+"="+artifacts,
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node console.e2e.mjs %s: %v\nstdout:\n%s\nstderr:\n%s", scenario, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}
