package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestHelp: every way of asking for help answers on stdout with exit 0,
// and version answers to its flag forms too.
func TestHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help"}, "toolstream help [COMMAND]"},
		{[]string{"-h"}, "Examples:"},
		{[]string{"--help"}, "demo [-raw] [-listen ADDR]"},
		{[]string{"help", "serve"}, "-listen ADDR   the address to listen on"},
		{[]string{"serve", "-h"}, "SIGHUP reloads FILE"},
		{[]string{"demo", "--help"}, "listed in /v1/models as demo-model"},
		{[]string{"check", "-help"}, "file:line:col"},
		{[]string{"health", "-h"}, "-timeout D"},
		{[]string{"version", "-h"}, "also -version"},
		{[]string{"-version"}, "toolstream " + Version},
		{[]string{"--version"}, "commit "},
	} {
		code, out, errs := runCmd(tc.args...)
		if code != exitOK || !strings.Contains(out, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 0 and %q", tc.args, code, out, errs, tc.want)
		}
	}
	if code, _, errs := runCmd("help", "frobnicate"); code != exitUsage || !strings.Contains(errs, `unknown command "frobnicate"`) {
		t.Errorf("help of an unknown command: exit %d, stderr %q", code, errs)
	}
}

// TestHelpNamesEveryFlag holds each command's help to the flags the
// command really defines: an undefined flag makes the flag package list
// them all.
func TestHelpNamesEveryFlag(t *testing.T) {
	flagRE := regexp.MustCompile(`(?m)^\s+-([\w-]+)`) // names such as -model-only hold a hyphen
	for _, cmd := range []string{"serve", "demo", "check", "health"} {
		_, _, errs := runCmd(cmd, "-no-such-flag")
		flags := flagRE.FindAllStringSubmatch(errs, -1)
		if len(flags) == 0 {
			t.Fatalf("%s: no flags listed in %q", cmd, errs)
		}
		for _, f := range flags {
			if !strings.Contains(commandHelp[cmd], "-"+f[1]+" ") {
				t.Errorf("%s -h does not explain -%s", cmd, f[1])
			}
		}
	}
}
