package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCommands(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.yaml")
	os.WriteFile(broken, []byte("listen: 127.0.0.1:8080\nloop:\n  max_rounds: 0\n  dispaly: events\n"), 0o644)

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr []string
	}{
		{"no command", nil, exitUsage, "", []string{"Usage:"}},
		{"unknown command", []string{"frobnicate"}, exitUsage, "", []string{`unknown command "frobnicate"`}},
		{"version", []string{"version"}, exitOK, "toolstream ", nil},
		{"check example", []string{"check", "-config", "../../config.example.yaml"}, exitOK, "ok (", nil},
		{"check a plain argument", []string{"check", "../../config.example.yaml"}, exitOK, "../../config.example.yaml: ok (", nil},
		{"check two files", []string{"check", "-config", "../../config.example.yaml", broken}, exitUsage, "", []string{"toolstream check: two config files"}},
		{"serve two files", []string{"serve", "a.yaml", "b.yaml"}, exitUsage, "", []string{`toolstream serve: one config file at most, got ["a.yaml" "b.yaml"]`}},
		{"check broken", []string{"check", "-config", broken}, exitFail, "", []string{
			"broken.yaml:3:15: loop.max_rounds:", "broken.yaml:4:3: loop.dispaly: unknown key"}},
		{"serve refuses an open public address", []string{"serve", "../../config.example.yaml", "-listen", "0.0.0.0:0"}, exitFail, "",
			[]string{"auth.keys: no client keys while listen \"0.0.0.0:0\" is not loopback"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmd(tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errs)
			}
			if !strings.Contains(out, tt.stdout) {
				t.Errorf("stdout %q lacks %q", out, tt.stdout)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(errs, want) {
					t.Errorf("stderr %q lacks %q", errs, want)
				}
			}
		})
	}
}

// TestCheckDefaultFile: check reads ./toolstream.yaml when no file is
// named, and says how to get one when there is none.
func TestCheckDefaultFile(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("TOOLSTREAM_CONFIG", "")
	code, _, errs := runCmd("check")
	if code != exitFail || !strings.Contains(errs, "toolstream check: no config file: looked for ./toolstream.yaml") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	os.WriteFile("toolstream.yaml", []byte("listen: 127.0.0.1:8080\n"), 0o644)
	if code, out, errs := runCmd("check"); code != exitOK || out != "toolstream.yaml: ok (0 upstreams, 0 tools)\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestCheckCounts: the ok line counts in words a person reads: "1
// upstream", "2 tools", and MCP servers and policy rules only when there
// are some.
func TestCheckCounts(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.yaml")
	tool := "  - name: %s\n    description: d\n    parameters: {type: object}\n    webhook: {url: http://127.0.0.1:9001/x}\n"
	for _, tt := range []struct {
		yaml, want string
	}{
		{"upstreams:\n  - {name: a, base_url: http://a/v1}\ntools:\n" + fmt.Sprintf(tool, "one"),
			"1 upstream, 1 tool"},
		{"upstreams:\n  - {name: a, base_url: http://a/v1}\n  - {name: b, base_url: http://b/v1}\ntools:\n" + fmt.Sprintf(tool, "one") + fmt.Sprintf(tool, "two") +
			"mcp_servers:\n  - {name: m, command: echo}\n",
			"2 upstreams, 2 tools, 1 MCP server"},
		{"upstreams:\n  - {name: a, base_url: http://a/v1}\npolicies:\n  - {name: p, action: deny}\n  - {name: q, redact_result: x}\n",
			"1 upstream, 0 tools, 2 policy rules"},
	} {
		os.WriteFile(file, []byte(tt.yaml), 0o644)
		if code, out, errs := runCmd("check", file); code != exitOK || out != file+": ok ("+tt.want+")\n" {
			t.Errorf("exit %d, stdout %q, stderr %q; want ok (%s)", code, out, errs, tt.want)
		}
	}
}

// TestCheckWarnings: a base_url without a version path is a warning on
// stderr at its file:line:col, naming the likely fix; the file is still
// ok (exit 0). A file with errors shows only the errors.
func TestCheckWarnings(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "t.yaml")
	os.WriteFile(file, []byte("upstreams:\n  - name: local\n    base_url: http://127.0.0.1:11434\n  - name: pool\n    base_urls: [http://a/v1, \"http://b/\"]\n"), 0o644)
	code, out, errs := runCmd("check", file)
	if code != exitOK || out != file+": ok (2 upstreams, 0 tools)\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 0 and ok", code, out, errs)
	}
	want := file + ":3:15: warning: upstreams[0].base_url: http://127.0.0.1:11434 has no version path such as /v1;" +
		" OpenAI-compatible servers serve their API under one — did you mean http://127.0.0.1:11434/v1?\n" +
		file + ":5:30: warning: upstreams[1].base_urls[1]: http://b has no version path such as /v1;" +
		" OpenAI-compatible servers serve their API under one — did you mean http://b/v1?\n"
	if errs != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errs, want)
	}

	os.WriteFile(file, []byte("upstreams:\n  - name: local\n    base_url: http://127.0.0.1:11434\n    balance: fastest\n"), 0o644)
	code, out, errs = runCmd("check", file)
	if code != exitFail || out != "" || strings.Contains(errs, "warning") || !strings.Contains(errs, "upstreams[0].balance") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and only the balance error", code, out, errs)
	}
}

// TestDemoPortInUse: demo -listen on a busy port says what to do, as
// serve does, and exits 1 before sending the conversation.
func TestDemoPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	code, out, errs := runCmd("demo", "-listen", addr)
	want := "toolstream demo: listen " + addr + ": address already in use — another process (maybe another toolstream) is listening there; stop it or give -listen a free port\n"
	if code != exitFail || errs != want || out != "" {
		t.Errorf("exit %d\nstdout %q\nstderr %q\nwant stderr %q", code, out, errs, want)
	}
}
