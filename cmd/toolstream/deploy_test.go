package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The files a deployment uses, from the repository root.
const (
	unitFile     = "../../deploy/toolstream.service"
	deployConfig = "../../deploy/toolstream.yaml"
	dockerfile   = "../../Dockerfile"
	// installedBinary and installedConfig are where the unit and the
	// image expect them; the tests put their own in their place.
	installedBinary = "/usr/local/bin/toolstream"
	installedConfig = "/etc/toolstream/toolstream.yaml"
)

// deployEnv is what the service's environment would hold: a client key
// (the shipped config requires one), a state directory, loopback.
func deployEnv(t *testing.T) []string {
	return []string{"TOOLSTREAM_KEY=deploy-test-key", "STATE_DIRECTORY=" + t.TempDir()}
}

// TestSystemdUnit runs the unit's commands as systemd would, against the
// shipped config: ExecStartPre passes, ExecStart serves, ExecReload
// reloads, and SIGTERM (systemctl stop) ends it with exit 0. With
// systemd-analyze installed, the unit also verifies without a warning.
func TestSystemdUnit(t *testing.T) {
	unit := readUnit(t, unitFile)
	cfg := copyFile(t, deployConfig)
	command := func(key string) []string {
		t.Helper()
		vals := unit[key]
		if len(vals) != 1 {
			t.Fatalf("%s: %d values, want 1: %q", key, len(vals), vals)
		}
		f := strings.Fields(vals[0])
		for i, a := range f {
			if a == installedConfig {
				f[i] = cfg
			}
		}
		return f
	}

	pre := command("ExecStartPre")
	if pre[0] != installedBinary {
		t.Fatalf("ExecStartPre runs %s, want %s", pre[0], installedBinary)
	}
	for _, kv := range deployEnv(t) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	if code, out, errs := runCmd(pre[1:]...); code != exitOK {
		t.Fatalf("ExecStartPre %q: exit %d\n%s%s", pre, code, out, errs)
	}
	// A config with a problem must stop the start there.
	broken := filepath.Join(t.TempDir(), "broken.yaml")
	os.WriteFile(broken, []byte("loop:\n  max_rounds: 0\n"), 0o644)
	badPre := append([]string{}, pre[1:]...)
	for i, a := range badPre {
		if a == cfg {
			badPre[i] = broken
		}
	}
	if code, _, _ := runCmd(badPre...); code != exitFail {
		t.Errorf("ExecStartPre with a broken config: exit %d, want %d (RestartPreventExitStatus)", code, exitFail)
	}
	if got := unit["RestartPreventExitStatus"]; len(got) != 1 || got[0] != strconv.Itoa(exitFail) {
		t.Errorf("RestartPreventExitStatus = %q, want the config-error exit %d", got, exitFail)
	}

	start := command("ExecStart")
	if start[0] != installedBinary {
		t.Fatalf("ExecStart runs %s, want %s", start[0], installedBinary)
	}
	p := startCmd(t, append(deployEnv(t), "TOOLSTREAM_LISTEN=127.0.0.1:0"), start[1:]...)
	if err := probe(p.url+"/healthz", waitFor); err != nil {
		t.Fatalf("/healthz after ExecStart: %v", err)
	}

	reload := command("ExecReload")
	if len(reload) != 3 || reload[1] != "-HUP" || reload[2] != "$MAINPID" {
		t.Fatalf("ExecReload = %q, want KILL -HUP $MAINPID", reload)
	}
	reload[2] = strconv.Itoa(p.cmd.Process.Pid)
	if out, err := exec.Command(reload[0], reload[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("ExecReload %q: %v\n%s", reload, err, out)
	}
	p.log.wait(t, regexp.MustCompile(`msg="config reloaded"`))

	p.signal(t, syscall.SIGTERM)
	if code := p.exit(t); code != exitOK {
		t.Errorf("stopped with SIGTERM: exit %d, want 0\n%s", code, p.log)
	}

	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Log("systemd-analyze not installed: the unit's syntax is not verified")
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(unitFile)
	verify := filepath.Join(t.TempDir(), "toolstream.service")
	os.WriteFile(verify, []byte(strings.ReplaceAll(string(text), installedBinary, exe)), 0o644)
	out, err := exec.Command("systemd-analyze", "verify", verify).CombinedOutput()
	// verify exits 0 on keys it cannot parse and only says so.
	if err != nil || strings.Contains(string(out), "toolstream.service") {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestDockerfile runs the image's commands against the shipped config
// with the image's environment: ENTRYPOINT serves, and HEALTHCHECK exits
// 0 while it does and 1 once it stopped.
func TestDockerfile(t *testing.T) {
	d := readDockerfile(t, dockerfile)
	if d.expose != "8080" || d.env["TOOLSTREAM_LISTEN"] != "0.0.0.0:8080" {
		t.Errorf("EXPOSE %q, TOOLSTREAM_LISTEN %q: want the listen port exposed", d.expose, d.env["TOOLSTREAM_LISTEN"])
	}
	if d.env["TOOLSTREAM_CONFIG"] != installedConfig {
		t.Errorf("TOOLSTREAM_CONFIG = %q, want %s", d.env["TOOLSTREAM_CONFIG"], installedConfig)
	}
	if len(d.entrypoint) < 2 || d.entrypoint[0] != installedBinary || d.entrypoint[1] != "serve" {
		t.Fatalf("ENTRYPOINT %q, want %s serve", d.entrypoint, installedBinary)
	}
	if len(d.healthcheck) < 2 || d.healthcheck[0] != installedBinary {
		t.Fatalf("HEALTHCHECK CMD %q, want %s …", d.healthcheck, installedBinary)
	}
	env := deployEnv(t)
	for k, v := range d.env {
		env = append(env, k+"="+v)
	}
	// The image listens on all interfaces; here, loopback is enough.
	env = append(env, "TOOLSTREAM_CONFIG="+copyFile(t, deployConfig), "TOOLSTREAM_LISTEN=127.0.0.1:0")
	p := startCmd(t, env, d.entrypoint[1:]...)
	addr := strings.TrimPrefix(p.url, "http://")

	t.Setenv("TOOLSTREAM_LISTEN", addr) // as the image's ENV, with the port the server got
	t.Setenv("TOOLSTREAM_CONFIG", "")
	if code, out, errs := runCmd(d.healthcheck[1:]...); code != exitOK {
		t.Errorf("HEALTHCHECK %q on a running server: exit %d\n%s%s", d.healthcheck, code, out, errs)
	}
	p.signal(t, syscall.SIGTERM)
	p.exit(t)
	if code, _, _ := runCmd(d.healthcheck[1:]...); code != exitFail {
		t.Errorf("HEALTHCHECK %q after the server stopped: exit %d, want %d", d.healthcheck, code, exitFail)
	}
}

// readUnit returns the [Service] section's keys and their values, in
// order.
func readUnit(t *testing.T, file string) map[string][]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[string][]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			section = strings.Trim(line, "[]")
		case section == "Service":
			k, v, _ := strings.Cut(line, "=")
			keys[k] = append(keys[k], v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return keys
}

// dockerfileInfo is what the tests read from a Dockerfile's last stage.
type dockerfileInfo struct {
	entrypoint, healthcheck []string
	env                     map[string]string
	expose                  string
}

// healthCmd finds the command of a HEALTHCHECK after its options.
var healthCmd = regexp.MustCompile(`(?:^|\s)CMD\s+(.*)$`)

// readDockerfile reads ENTRYPOINT, HEALTHCHECK CMD, ENV and EXPOSE, in
// the JSON (exec) form the image uses: a shell form would need a shell
// the distroless image does not have.
func readDockerfile(t *testing.T, file string) dockerfileInfo {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// Join continued lines, drop comments.
	var lines []string
	cur := ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		if s, ok := strings.CutSuffix(l, "\\"); ok {
			cur += s + " "
			continue
		}
		lines = append(lines, cur+l)
		cur = ""
	}
	d := dockerfileInfo{env: map[string]string{}}
	execForm := func(s string) []string {
		var v []string
		if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &v); err != nil {
			t.Fatalf("%q is not the exec (JSON) form: %v", s, err)
		}
		return v
	}
	for _, l := range lines {
		inst, rest, _ := strings.Cut(strings.TrimSpace(l), " ")
		switch strings.ToUpper(inst) {
		case "FROM":
			d = dockerfileInfo{env: map[string]string{}} // a new stage
		case "ENTRYPOINT":
			d.entrypoint = execForm(rest)
		case "HEALTHCHECK":
			m := healthCmd.FindStringSubmatch(rest)
			if m == nil {
				t.Fatalf("HEALTHCHECK without CMD: %q", rest)
			}
			d.healthcheck = execForm(m[1])
		case "ENV":
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				d.env[k] = v
			}
		case "EXPOSE":
			d.expose = strings.TrimSpace(rest)
		}
	}
	return d
}

// copyFile copies file into a temporary directory and returns the copy.
func copyFile(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(file))
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}
