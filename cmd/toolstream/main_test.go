package main

import (
	"bytes"
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
