package main

import (
	"strings"
	"testing"
)

// TestDemoFlagProblems: -model-only needs an address and refuses the
// conversation's flags, which it would otherwise ignore; a negative pace
// is refused; each is a usage error (exit 2) saying why.
func TestDemoFlagProblems(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-model-only"}, "-model-only needs -listen ADDR"},
		{[]string{"-model-only", "-listen", "127.0.0.1:0", "-raw"}, "-raw, -tools and prompts are for the conversation"},
		{[]string{"-model-only", "-listen", "127.0.0.1:0", "hello"}, "-raw, -tools and prompts are for the conversation"},
		{[]string{"-model-only", "-listen", "127.0.0.1:0", "-tools", "x.yaml"}, "-raw, -tools and prompts are for the conversation"},
		{[]string{"-pace", "-5ms"}, "-pace must not be negative"},
	} {
		code, out, errs := runCmd(append([]string{"demo"}, tc.args...)...)
		if code != exitUsage || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 saying %q", tc.args, code, out, errs, tc.want)
		}
	}
}
