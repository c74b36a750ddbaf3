package config_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
)

// TestWarnings: a base URL whose path has no version segment loads, with
// a warning at its line:col that names the likely fix; one with a
// version segment anywhere in its path (as the proxy decides when it
// explains a 404) has none.
func TestWarnings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"host only", "upstreams:\n  - name: u\n    base_url: http://127.0.0.1:11434\n", []string{
			`t.yaml:3:15: warning: upstreams[0].base_url: http://127.0.0.1:11434 has no version path such as /v1; OpenAI-compatible servers serve their API under one — did you mean http://127.0.0.1:11434/v1?`}},
		{"trailing slash", "upstreams:\n  - name: u\n    base_url: http://h/\n", []string{
			`t.yaml:3:15: warning: upstreams[0].base_url: http://h has no version path such as /v1; OpenAI-compatible servers serve their API under one — did you mean http://h/v1?`}},
		{"path without a version", "upstreams:\n  - name: u\n    base_url: https://h/api\n", []string{
			`t.yaml:3:15: warning: upstreams[0].base_url: https://h/api has no version path such as /v1; OpenAI-compatible servers serve their API under one — did you mean https://h/api/v1?`}},
		{"query left out of the message", "upstreams:\n  - name: u\n    base_url: \"https://h/openai/deployments/d?api-version=1&key=k3y\"\n", []string{
			`t.yaml:3:15: warning: upstreams[0].base_url: https://h/openai/deployments/d has no version path such as /v1; OpenAI-compatible servers serve their API under one — did you mean https://h/openai/deployments/d/v1?`}},
		{"pool entries, in file order", "upstreams:\n  - name: u\n    base_urls:\n      - http://a/v1\n      - http://b:8000\n  - name: w\n    base_url: http://w\n", []string{
			`t.yaml:5:9: warning: upstreams[0].base_urls[1]: http://b:8000 has no version path such as /v1; OpenAI-compatible servers serve their API under one — did you mean http://b:8000/v1?`,
			`t.yaml:7:15: warning: upstreams[1].base_url: http://w has no version path such as /v1; OpenAI-compatible servers serve their API under one — did you mean http://w/v1?`}},
		{"v1", up, nil},
		{"v1 with a trailing slash", "upstreams:\n  - {name: u, base_url: \"http://h/v1/\"}\n", nil},
		{"v1 under a prefix", "upstreams:\n  - {name: u, base_url: \"https://openrouter.ai/api/v1\"}\n", nil},
		{"gemini", "upstreams:\n  - {name: u, base_url: \"https://generativelanguage.googleapis.com/v1beta/openai\"}\n", nil},
		{"v4 and a query", "upstreams:\n  - {name: u, base_url: \"https://h/v4?x=1\"}\n", nil},
		{"no upstreams", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := mustParse(t, tc.src, nil)
			var got []string
			for _, w := range cfg.Warnings {
				if !w.Warning {
					t.Errorf("%q has Warning false", w.String())
				}
				got = append(got, w.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			for _, w := range got {
				if strings.Contains(w, "k3y") {
					t.Errorf("warning shows the query: %s", w)
				}
			}
		})
	}
}

// TestWarningsNeedAValidConfig: a file with errors has no config, so no
// warnings either; the errors are not marked as warnings.
func TestWarningsNeedAValidConfig(t *testing.T) {
	t.Parallel()
	_, err := config.Parse("t.yaml", []byte("upstreams:\n  - name: u\n    base_url: http://h\n    balance: x\n"), env(nil))
	if err == nil || strings.Contains(err.Error(), "warning") {
		t.Fatalf("Parse = %v, want only the balance error", err)
	}
}

// TestWarningString: "warning:" comes after the position, where
// compilers write it, and leads the line when there is none.
func TestWarningString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    config.Problem
		want string
	}{
		{config.Problem{File: "t.yaml", Line: 3, Col: 15, Path: "a", Message: "m", Warning: true}, "t.yaml:3:15: warning: a: m"},
		{config.Problem{Path: "a", Message: "m", Warning: true}, "warning: a: m"},
		{config.Problem{File: "t.yaml", Line: 3, Path: "a", Message: "m"}, "t.yaml:3: a: m"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.p, got, tc.want)
		}
	}
}
