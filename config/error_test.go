package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
)

func TestProblemString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    config.Problem
		want string
	}{
		{config.Problem{File: "toolstream.yaml", Line: 41, Col: 7, Path: "tools[2].webhook.timeout", Message: "must be positive, got -1s"},
			"toolstream.yaml:41:7: tools[2].webhook.timeout: must be positive, got -1s"},
		{config.Problem{File: "f.yaml", Line: 3, Message: "invalid YAML: x"}, "f.yaml:3: invalid YAML: x"},
		{config.Problem{File: "f.yaml", Message: "cannot read configuration: permission denied"}, "f.yaml: cannot read configuration: permission denied"},
		{config.Problem{Path: "listen", Message: "bad"}, "listen: bad"},
		{config.Problem{Line: 2, Col: 1, Path: "listen", Message: "bad"}, "2:1: listen: bad"},
		{config.Problem{Message: "bad"}, "bad"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.p, got, tc.want)
		}
	}
}

// TestErrorSorted: problems come out by line, then column, whatever
// order the decoder and the validator found them in.
func TestErrorSorted(t *testing.T) {
	t.Parallel()
	src := "loop:\n  display: x\n  max_rounds: 0\nlisten: nope\nstorage: {turn_retention: 0s, audit_retention: 0s}\n"
	want := []string{
		`t.yaml:2:12: loop.display: unknown value "x" (want events, markdown or none)`,
		`t.yaml:3:15: loop.max_rounds: must be at least 1, got 0`,
		`t.yaml:4:9: listen: invalid address "nope" (want host:port, e.g. 127.0.0.1:8080, or :8080 for all interfaces)`,
		`t.yaml:5:27: storage.turn_retention: must be positive, got 0s`,
		`t.yaml:5:48: storage.audit_retention: must be positive, got 0s`,
	}
	if diff := cmp.Diff(want, problems(t, src, nil)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
