package replicas_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolstream/toolstream/examples/internal/exampletest"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

// TestByHand follows the README's replicas section as a person would,
// without a container runtime: its commands start the demo's scripted
// model, the example task tools, a PostgreSQL cluster of the user's own,
// two replicas and nginx; then a turn runs through nginx and one on each
// replica, and a delete started on one waits for an approval given on the
// other. Only what a
// test must change is changed: the binaries are built by the test (the
// commands' go build and go run), the ports are free ones, and a test run
// by root runs the commands as the postgres user, as PostgreSQL and the
// README's "as your own user" ask.
func TestByHand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL, nginx and four processes")
	}
	nginx := lookBin(t, "nginx", "/usr/sbin/nginx")
	pgBin := postgresBin(t)
	setup, requests := readmeBlocks(t)
	dir := t.TempDir()
	build(t, dir)
	cred := unprivileged(t, dir)

	ports := map[string]string{}
	for _, p := range []string{"8080", "8081", "8082", "9090", "9001", "5433"} {
		_, ports[p], _ = net.SplitHostPort(exampletest.FreeAddr(t))
	}
	script := setup
	script = strings.Replace(script, "go build -o toolstream ./cmd/toolstream\n", "", 1)
	script = strings.Replace(script, "go run ./examples/tools/serve", "./tools-serve", 1)
	script = strings.ReplaceAll(script, "/usr/lib/postgresql/*/bin", pgBin)
	for from, to := range ports {
		// Where the commands listen and connect, not nginx.conf's
		// "listen 8080;" and replica names their sed looks for.
		script = regexp.MustCompile(`(127\.0\.0\.1:|localhost:|-p )`+from+`\b`).ReplaceAllString(script, "${1}"+to)
	}
	script = "set -e\n" + script + "\necho \"$TOOLSTREAM_KEY\" > client.key\n"
	t.Cleanup(func() { stopAll(dir, nginx, pgBin, cred) })
	runScript(t, dir, script, cred)

	key := strings.TrimSpace(readFile(t, filepath.Join(dir, "client.key")))
	a, b, lb := "http://127.0.0.1:"+ports["8081"], "http://127.0.0.1:"+ports["8082"], "http://127.0.0.1:"+ports["8080"]
	for _, u := range []string{a, b, lb} {
		waitReady(t, u, dir)
	}
	// The README's requests, as they are: the model's name and prompts.
	for _, want := range []string{`"model":"demo-model"`, "Put a dentist appointment on my task board", "Delete task 1", "/v1/actions/ACTION_ID/approve"} {
		if !strings.Contains(requests, want) {
			t.Fatalf("the README's requests lack %q:\n%s", want, requests)
		}
	}
	if text, _ := turn(t, lb, key, "Put a dentist appointment on my task board", nil); !strings.Contains(text, `"Dentist appointment" is task #1 on your board`) {
		t.Errorf("the turn through nginx said %q", text)
	}
	if text, _ := turn(t, b, key, "What is on my list?", nil); !strings.Contains(text, "#1 Dentist appointment") {
		t.Errorf("replica B's turn does not see A's task: %q", text)
	}
	text, raw := turn(t, a, key, "Delete task 1", func(action string) {
		approve(t, b, key, action)
	})
	if !strings.Contains(text, `Deleted task #1 "Dentist appointment".`) || !strings.HasSuffix(raw, "data: [DONE]\n\n") {
		t.Errorf("the delete on replica A, approved on replica B, said %q:\n%s", text, raw)
	}
}

// readmeBlocks are the README's replicas commands: the block that starts
// the processes by hand, and the one of requests after it.
func readmeBlocks(t *testing.T) (setup, requests string) {
	t.Helper()
	readme := readFile(t, "../../README.md")
	_, section, ok := strings.Cut(readme, "## Running more than one replica")
	if !ok {
		t.Fatal("README has no replicas section")
	}
	var blocks []string
	for {
		_, rest, ok := strings.Cut(section, "```sh\n")
		if !ok {
			break
		}
		block, after, _ := strings.Cut(rest, "```")
		blocks = append(blocks, block)
		section = after
	}
	for i, b := range blocks {
		if strings.Contains(b, "demo -model-only") && i+1 < len(blocks) {
			return b, blocks[i+1]
		}
	}
	t.Fatal("README's replicas section has no by-hand commands with demo -model-only, and requests after them")
	return "", ""
}

// build builds what the commands' go build and go run would, into dir,
// with the files they read.
func build(t *testing.T, dir string) {
	t.Helper()
	for _, b := range [][2]string{{"toolstream", "./cmd/toolstream"}, {"tools-serve", "./examples/tools/serve"}} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, b[0]), b[1])
		cmd.Dir = "../.."
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "examples/replicas"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"toolstream.yaml", "nginx.conf"} {
		if err := os.WriteFile(filepath.Join(dir, "examples/replicas", f), []byte(readFile(t, f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// unprivileged is who runs the commands: this process's user, or, for
// root (which PostgreSQL refuses), the postgres user, given dir.
func unprivileged(t *testing.T, dir string) *syscall.Credential {
	t.Helper()
	if os.Getuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("run as root, the commands need the postgres user: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error { return os.Chown(p, uid, gid) })
	// t.TempDir's parent is root's alone: the user must pass through it.
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// runScript runs the commands with bash in dir, as cred; the processes
// they start in the background stay in its process group, which stopAll
// ends.
func runScript(t *testing.T, dir, script string, cred *syscall.Credential) {
	t.Helper()
	log, err := os.Create(filepath.Join(dir, "commands.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if cred != nil {
		// nginx logs to /dev/stdout, which it opens again: as the user.
		os.Chown(log.Name(), int(cred.Uid), int(cred.Gid))
	}
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: cred}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Known before the commands end, so a failure still stops what they
	// started.
	os.WriteFile(filepath.Join(dir, "commands.pgid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the README's commands failed: %v\n%s", err, readFile(t, log.Name()))
	}
}

// stopAll ends what the commands started: the background processes (one
// process group), nginx and PostgreSQL (which leave it).
func stopAll(dir, nginx, pgBin string, cred *syscall.Credential) {
	if b, err := os.ReadFile(filepath.Join(dir, "commands.pgid")); err == nil {
		if pgid, err := strconv.Atoi(string(b)); err == nil {
			syscall.Kill(-pgid, syscall.SIGTERM)
		}
	}
	for _, args := range [][]string{
		{nginx, "-p", dir, "-c", "toolstream-nginx.conf", "-e", "stderr", "-g", "pid " + dir + "/toolstream-nginx.pid;", "-s", "stop"},
		{filepath.Join(pgBin, "pg_ctl"), "-D", filepath.Join(dir, "toolstream-pg"), "-m", "immediate", "stop"},
	} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		cmd.Run()
	}
}

// waitReady waits until base answers /readyz.
func waitReady(t *testing.T, base, dir string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s not ready; the commands wrote:\n%s", base, readFile(t, filepath.Join(dir, "commands.log")))
}

// turn sends prompt as the README's curl does and returns the text the
// stream carried and the stream; onAction, when set, is called with the
// id of an approval the stream asks for.
func turn(t *testing.T, base, key, prompt string, onAction func(string)) (text, raw string) {
	t.Helper()
	body := fmt.Sprintf(`{"model":"demo-model","stream":true,"messages":[{"role":"user","content":%q}]}`, prompt)
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b, content strings.Builder
	action := regexp.MustCompile(`"event":"approval.requested".*?"action_id":"([^"]+)"`)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		b.WriteString(line + "\n")
		if m := action.FindStringSubmatch(line); m != nil && onAction != nil {
			go onAction(m[1])
		}
		var chunk struct {
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok && json.Unmarshal([]byte(data), &chunk) == nil && len(chunk.Choices) > 0 {
			content.WriteString(chunk.Choices[0].Delta.Content)
		}
	}
	return content.String(), b.String()
}

// approve approves action on base, as the README's curl does.
func approve(t *testing.T, base, key, action string) {
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/actions/"+action+"/approve", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("approve on the other replica: %d", resp.StatusCode)
	}
}

func lookBin(t *testing.T, name, fallback string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if _, err := os.Stat(fallback); err == nil {
		return fallback
	}
	if os.Getenv(pgtest.RequireEnv) != "" {
		t.Fatalf("%s is not installed", name)
	}
	t.Skipf("%s is not installed", name)
	return ""
}

// postgresBin is the directory of Debian's PostgreSQL server binaries.
func postgresBin(t *testing.T) string {
	t.Helper()
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		if os.Getenv(pgtest.RequireEnv) != "" {
			t.Fatal("PostgreSQL's server binaries are not installed")
		}
		t.Skip("PostgreSQL's server binaries are not installed")
	}
	return filepath.Dir(matches[len(matches)-1])
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
