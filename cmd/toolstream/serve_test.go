package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

// TestMain runs the command itself when a test starts this binary as
// "toolstream" (startServe), so that signals reach a real process.
func TestMain(m *testing.M) {
	if os.Getenv("TOOLSTREAM_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	// Without -v, go test shows no skip's reason: say once how to run it.
	flag.Parse()
	if !testing.Short() && !haveContainerEngine() {
		fmt.Println("cmd/toolstream: TestDockerImage is skipped: neither docker nor podman is installed")
	}
	goleak.VerifyTestMain(pgtest.Wrap(m))
}

// waitFor bounds every wait for the process under test.
const waitFor = 20 * time.Second

// logBuffer collects a process's stderr and wakes waiters on each write.
type logBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newLogBuffer() *logBuffer { return &logBuffer{changed: make(chan struct{})} }

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	close(l.changed)
	l.changed = make(chan struct{})
	return len(p), nil
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// wait blocks until the log matches re and returns the first match.
func (l *logBuffer) wait(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		m := re.FindStringSubmatch(l.buf.String())
		changed := l.changed
		l.mu.Unlock()
		if m != nil {
			return m
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("log never matched %s:\n%s", re, l.String())
		}
	}
}

// proc is "toolstream serve" running as a child process.
type proc struct {
	cmd *exec.Cmd
	log *logBuffer
	url string
	// exited is closed once the process has ended and been waited for.
	exited chan struct{}
}

// startServe runs "toolstream serve FILE" and waits until it listens.
func startServe(t *testing.T, file string) *proc {
	t.Helper()
	return startCmd(t, nil, "serve", file)
}

// startCmd runs "toolstream ARGS…" with env added to the environment
// (TOOLSTREAM_CONFIG and TOOLSTREAM_LISTEN empty unless env sets them) and
// waits until it listens.
func startCmd(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: exec.Command(exe, args...), log: newLogBuffer(), exited: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "TOOLSTREAM_TEST_MAIN=1", "TOOLSTREAM_CONFIG=", "TOOLSTREAM_LISTEN=")
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stderr = p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
	})
	addr := p.log.wait(t, regexp.MustCompile(`msg=listening .*addr=(\S+)`))[1]
	p.url = "http://" + addr
	return p
}

func (p *proc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// exit waits for the process to end and returns its exit code.
func (p *proc) exit(t *testing.T) int {
	t.Helper()
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(waitFor):
		t.Fatalf("the process did not exit:\n%s", p.log)
		return -1
	}
}

// stream is one streaming chat completion read event by event.
type stream struct {
	resp *http.Response
	br   *bufio.Reader
}

func (p *proc) open(t *testing.T, content string) *stream {
	t.Helper()
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"` + content + `"}]}`
	resp, err := http.Post(p.url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	return &stream{resp: resp, br: bufio.NewReader(resp.Body)}
}

// next reads n data events.
func (s *stream) next(t *testing.T, n int) []string {
	t.Helper()
	var got []string
	for len(got) < n {
		line, err := s.br.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d events: %v", len(got), err)
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			got = append(got, strings.TrimSpace(d))
		}
	}
	return got
}

// rest reads the stream to its end and returns its data events.
func (s *stream) rest(t *testing.T) []string {
	t.Helper()
	var got []string
	for {
		line, err := s.br.ReadString('\n')
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			got = append(got, strings.TrimSpace(d))
		}
		if err != nil {
			return got
		}
	}
}

// done reports whether events end with [DONE].
func done(events []string) bool {
	return len(events) > 0 && events[len(events)-1] == "[DONE]"
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// serveConfig is a config for the child: in-memory storage, one native
// upstream, a short grace, and extra appended.
func serveConfig(upstream, extra string) string {
	return `listen: 127.0.0.1:0
shutdown_grace: 300ms
storage: {in_memory: true}
upstreams:
  - name: up
    base_url: ` + upstream + `
    models: ["*"]
    tool_mode: native
` + extra
}

// serveUpstream writes serveConfig for up into a new directory and starts
// serve on it; up is closed when the test ends.
func serveUpstream(t *testing.T, up *upstreamtest.Server) (*proc, string) {
	t.Helper()
	t.Cleanup(up.Close)
	file := filepath.Join(t.TempDir(), "toolstream.yaml")
	writeFile(t, file, serveConfig(up.URL, ""))
	return startServe(t, file), file
}

// TestServeReload: SIGHUP with a new tool in the file makes it part of the
// next turn while a stream opened before stays open and finishes with
// [DONE]; SIGHUP with a broken file, again with a stream open, keeps the
// running configuration and that stream, and logs each problem as
// file:line:col.
func TestServeReload(t *testing.T) {
	gate, gate2 := make(chan struct{}), make(chan struct{})
	up := upstreamtest.New(
		upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "before ", "reload"), Gate: gate, GateAfter: 2},
		upstreamtest.Round{Events: upstreamtest.Text("c2", "m", "after")},
		upstreamtest.Round{Events: upstreamtest.Text("c3", "m", "across ", "a broken reload"), Gate: gate2, GateAfter: 2},
		upstreamtest.Round{Events: upstreamtest.Text("c4", "m", "still")},
	)
	p, file := serveUpstream(t, up)

	held := p.open(t, "one")
	held.next(t, 2)

	writeFile(t, file, serveConfig(up.URL, `tools:
  - name: get_time
    description: The time.
    webhook: {url: "http://127.0.0.1:9/time"}
`))
	p.signal(t, syscall.SIGHUP)
	p.log.wait(t, regexp.MustCompile(`msg="config reloaded".* tools=1`))
	if got := p.open(t, "two").rest(t); !done(got) {
		t.Errorf("turn after the reload: %q", got)
	}
	if body := string(up.Requests()[1].Body); !strings.Contains(body, `"name":"get_time"`) {
		t.Errorf("the reloaded tool is not offered to the upstream: %s", body)
	}

	close(gate)
	if got := held.rest(t); !done(got) || !strings.Contains(strings.Join(got, ""), "reload") {
		t.Errorf("the stream open across the reload: %q", got)
	}

	held2 := p.open(t, "three")
	held2.next(t, 2)
	writeFile(t, file, "listen: 127.0.0.1:0\nloop:\n  dispaly: events\n")
	p.signal(t, syscall.SIGHUP)
	p.log.wait(t, regexp.MustCompile(`problem="[^"]*toolstream\.yaml:3:3: loop\.dispaly: unknown key`))
	p.log.wait(t, regexp.MustCompile(`config not reloaded`))
	if got := p.open(t, "four").rest(t); !done(got) {
		t.Errorf("turn after a refused reload: %q", got)
	}
	if body := string(up.Requests()[3].Body); !strings.Contains(body, `"name":"get_time"`) {
		t.Errorf("a refused reload dropped the running tools: %s", body)
	}
	close(gate2)
	if got := held2.rest(t); !done(got) || !strings.Contains(strings.Join(got, ""), "a broken reload") {
		t.Errorf("the stream open across a refused reload: %q", got)
	}
	p.signal(t, syscall.SIGTERM)
	if code := p.exit(t); code != 0 {
		t.Errorf("exit %d after SIGTERM\n%s", code, p.log)
	}
}

// TestServeShutdown: after SIGTERM nothing new is accepted; a stream that
// ends within shutdown_grace ends as usual with [DONE]; one still open when
// the grace runs out gets one shutting_down error event and no [DONE], its
// upstream request is cancelled and the turn is logged as cut by the
// shutdown. Either way the process exits 0, having logged "shutting down"
// once and "stopped" last.
func TestServeShutdown(t *testing.T) {
	for _, tc := range []struct {
		name string
		// release, when set, lets the held stream finish this long after
		// SIGTERM.
		release time.Duration
		status  string
	}{
		{name: "stream shorter than the grace", release: 50 * time.Millisecond, status: "status=ok"},
		{name: "stream longer than the grace", status: "status=shutdown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gate := make(chan struct{})
			up := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "Hello", " world"), Gate: gate, GateAfter: 2})
			// A grace well above a loaded machine's scheduling gaps: 300ms
			// was outrun once by a race-detector run beside other work.
			t.Cleanup(up.Close)
			file := filepath.Join(t.TempDir(), "toolstream.yaml")
			writeFile(t, file, strings.Replace(serveConfig(up.URL, ""), "shutdown_grace: 300ms", "shutdown_grace: 2s", 1))
			p := startServe(t, file)

			held := p.open(t, "hold")
			held.next(t, 2)
			p.signal(t, syscall.SIGTERM)
			p.log.wait(t, regexp.MustCompile(`msg="shutting down"`))
			// A new connection, as a new client would open.
			fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			if resp, err := fresh.Get(p.url + "/healthz"); err == nil {
				resp.Body.Close()
				t.Errorf("a new request was served during the shutdown: %d", resp.StatusCode)
			}
			if tc.release > 0 {
				time.AfterFunc(tc.release, func() { close(gate) })
			} else {
				defer close(gate)
			}
			got := held.rest(t)
			if tc.release > 0 {
				if !done(got) || !strings.Contains(strings.Join(got, ""), `"content":" world"`) {
					t.Errorf("a stream that ends within the grace: %q, want the rest of it and [DONE]", got)
				}
			} else if len(got) != 1 || !strings.Contains(got[0], `"code":"shutting_down"`) || !strings.Contains(got[0], "the proxy is shutting down") {
				t.Errorf("after the grace the client read %q, want one shutting_down event and no [DONE]", got)
			}
			if code := p.exit(t); code != 0 {
				t.Errorf("exit %d\n%s", code, p.log)
			}
			log := p.log.String()
			for _, want := range []string{"signal=terminated grace=2s", tc.status, "version=" + Version + " commit="} {
				if !strings.Contains(log, want) {
					t.Errorf("log lacks %q:\n%s", want, log)
				}
			}
			// One "shutting down", however many steps the shutdown
			// takes, and "stopped" last: an operator reading the log
			// (or a supervisor waiting for the line) trusts both.
			if n := strings.Count(log, `msg="shutting down"`); n != 1 {
				t.Errorf(`"shutting down" logged %d times, want once:\n%s`, n, log)
			}
			lines := strings.Split(strings.TrimSpace(log), "\n")
			if last := lines[len(lines)-1]; !strings.Contains(last, "msg=stopped") {
				t.Errorf("the last log line is %q, want msg=stopped:\n%s", last, log)
			}
			if tc.release == 0 {
				ctx, cancel := context.WithTimeout(context.Background(), waitFor)
				defer cancel()
				if !up.WaitCancelled(ctx) {
					t.Error("the upstream request was not cancelled")
				}
			}
		})
	}
}

// TestServeStartErrors: what serve says when it cannot start.
func TestServeStartErrors(t *testing.T) {
	t.Run("no config file", func(t *testing.T) {
		t.Chdir(t.TempDir())
		t.Setenv("TOOLSTREAM_CONFIG", "")
		code, _, errs := runCmd("serve")
		if code != exitFail || !strings.Contains(errs, "no config file: looked for ./toolstream.yaml (or set -config FILE / TOOLSTREAM_CONFIG); copy config.example.yaml to start") {
			t.Errorf("exit %d, stderr %q", code, errs)
		}
	})
	t.Run("port in use", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		file := filepath.Join(t.TempDir(), "toolstream.yaml")
		writeFile(t, file, "listen: "+ln.Addr().String()+"\nstorage: {in_memory: true}\n")
		code, _, errs := runCmd("serve", file)
		want := "listen " + ln.Addr().String() + ": address already in use — another process (maybe another toolstream) is listening there; stop it or set listen / -listen to a free port"
		if code != exitFail || !strings.Contains(errs, want) {
			t.Errorf("exit %d, stderr %q", code, errs)
		}
	})
}
