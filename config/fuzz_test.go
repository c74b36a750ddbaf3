package config_test

import (
	"errors"
	"os"
	"testing"

	"github.com/toolstream/toolstream/config"
)

// FuzzParse feeds Parse arbitrary files. It must never panic; it returns
// either a config that validates or an *Error whose every problem has a
// message, names the file, and gives a line wherever it names a key.
func FuzzParse(f *testing.F) {
	for _, file := range []string{"../config.example.yaml", "testdata/broken.yaml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"", "~", "[]", "listen: *a", "a: &a [*a]", "? [a]\n: b",
		up + tool + "    parameters: {type: object, properties: {a: &x {type: string}, b: *x}}\n",
		"auth: {keys: [\"${K}\", \"$${K}\", \"${K:-}\", \"${\"]}\n",
		"auth: {keys: [v, {name: a, key: \"${K}\", models: [\"q*\"], tools: [], limits: {concurrent_turns: 1}}, {name: b, key: \"${U:-}\"}, {key: x}, [x]]}\n",
		"upstreams: [{name: a, base_url: \"http://h\", headers: {A: 1, A: 2}}]\n",
		"upstreams: [{name: a, base_urls: [\"http://h/v1\", \"http://u:p@h#f\"], balance: x, fallbacks: [a, b, b], health_check: {interval: 0s, path: \"/m?x\"}}, {name: b, base_url: \"http://h\", fallbacks: [a]}]\n",
		"mcp_servers:\n  - {name: s, url: \"http://h/mcp\", command: x, overrides: {t: {approval: admin}}}\n",
		"openapi_tools:\n  - {name: s, spec: \"ftp://h\", prefix: \"\", operations: [\"[\"], overrides: {t: {approval: admin}}}\n",
		"policies:\n  - name: a\n    when: |\n      args.x ==\n        nope\n    redact_result: 'a(b'\n  - {name: a, action: deny, when: \"args.c.matches('(')\", message: m}\n  - name: b\n    when: \"tool ==\n      x\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := config.Parse("f.yaml", data, env(map[string]string{"K": "v"}))
		if err == nil {
			if verr := cfg.Validate(); verr != nil {
				t.Fatalf("Parse accepted a config that Validate rejects:\n%v", verr)
			}
			return
		}
		var cerr *config.Error
		if !errors.As(err, &cerr) || len(cerr.Problems) == 0 {
			t.Fatalf("Parse error %T %v, want a non-empty *config.Error", err, err)
		}
		for _, p := range cerr.Problems {
			if p.Message == "" {
				t.Fatalf("problem without a message: %+v", p)
			}
			if p.File != "f.yaml" {
				t.Fatalf("problem %q does not name the file", p.String())
			}
			if p.Path != "" && p.Line == 0 {
				t.Fatalf("problem %q names a key but no line", p.String())
			}
		}
	})
}
