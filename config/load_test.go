package config_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
)

// env returns a lookup over a fixed map, so tests never read the process
// environment.
func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// mustParse parses src as "t.yaml" and fails the test on any problem.
func mustParse(t *testing.T, src string, vars map[string]string) *config.Config {
	t.Helper()
	cfg, err := config.Parse("t.yaml", []byte(src), env(vars))
	if err != nil {
		t.Fatalf("Parse: unexpected problems:\n%v", err)
	}
	return cfg
}

// problems parses src and returns its problems as printed, failing the
// test when there are none or the error is not an *config.Error.
func problems(t *testing.T, src string, vars map[string]string) []string {
	t.Helper()
	cfg, err := config.Parse("t.yaml", []byte(src), env(vars))
	if err == nil {
		t.Fatalf("Parse succeeded, want problems; got %+v", cfg)
	}
	if cfg != nil {
		t.Errorf("Parse returned a config along with an error")
	}
	var cerr *config.Error
	if !errors.As(err, &cerr) {
		t.Fatalf("Parse error is %T, want *config.Error: %v", err, err)
	}
	return strings.Split(cerr.Error(), "\n")
}

func TestParseEmptyIsDefault(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{
		"empty":         "",
		"comments only": "# nothing here\n",
		"null document": "---\n~\n",
		"empty mapping": "{}\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := mustParse(t, src, nil)
			want := config.Default()
			want.File = "t.yaml"
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseDefaults pins the defaulting rule: a key absent from the file
// keeps its default, at the top level and in every list entry, and an
// explicit zero is kept, not replaced by the default.
func TestParseDefaults(t *testing.T) {
	t.Parallel()
	src := `
loop:
  parse_retries: 0
  keepalive: 0
  max_rounds: 1
upstreams:
  - name: local
    base_url: http://127.0.0.1:11434/v1
  - name: other
    base_url: https://example.com/v1
    tool_mode: native
    timeout: 1m
tools:
  - name: ping
    webhook: {url: "http://127.0.0.1:9000/ping", timeout: 0s}
    max_result_bytes: 1KB
`
	got := mustParse(t, src, nil)

	want := config.Default()
	want.File = "t.yaml"
	want.Loop.ParseRetries = 0
	want.Loop.Keepalive = 0
	want.Loop.MaxRounds = 1
	local := config.DefaultUpstreamEntry()
	local.Name, local.BaseURL = "local", "http://127.0.0.1:11434/v1"
	other := config.DefaultUpstreamEntry()
	other.Name, other.BaseURL = "other", "https://example.com/v1"
	other.ToolMode, other.Timeout = config.ToolModeNative, time.Minute
	want.Upstreams = []config.Upstream{local, other}
	ping := config.DefaultToolEntry()
	ping.Name = "ping"
	ping.Webhook = &config.Webhook{URL: "http://127.0.0.1:9000/ping"}
	ping.MaxResultBytes = 1000
	want.Tools = []config.Tool{ping}

	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if d := got.Tools[0].Timeout(got.Loop); d != 30*time.Second {
		t.Errorf("Tool.Timeout with webhook.timeout 0 = %v, want loop.tool_timeout 30s", d)
	}
}

// TestShutdownGrace: shutdown_grace is a top-level duration, 30s when left
// out.
func TestShutdownGrace(t *testing.T) {
	t.Parallel()
	if d := config.Default().ShutdownGrace; d != 30*time.Second {
		t.Errorf("default shutdown_grace %v, want 30s", d)
	}
	if d := mustParse(t, "shutdown_grace: 300ms\n", nil).ShutdownGrace; d != 300*time.Millisecond {
		t.Errorf("shutdown_grace %v, want 300ms", d)
	}
}

func TestParseNullKeepsDefault(t *testing.T) {
	t.Parallel()
	got := mustParse(t, "listen: ~\nloop:\n  max_rounds: null\n  display:\nauth:\n", nil)
	want := config.Default()
	want.File = "t.yaml"
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
}

func TestToolTimeout(t *testing.T) {
	t.Parallel()
	loop := config.Default().Loop
	for _, tc := range []struct {
		name string
		hook *config.Webhook
		want time.Duration
	}{
		{"no webhook", nil, loop.ToolTimeout},
		{"zero", &config.Webhook{}, loop.ToolTimeout},
		{"own", &config.Webhook{Timeout: 10 * time.Second}, 10 * time.Second},
	} {
		tool := config.Tool{Webhook: tc.hook}
		if got := tool.Timeout(loop); got != tc.want {
			t.Errorf("%s: Timeout = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestParseKeepsEntriesAndDropsEmptyKeys(t *testing.T) {
	t.Parallel()
	src := `
auth:
  keys: ["${A}", "${UNSET:-}", "plain", ""]
  admin_keys: ["${UNSET:-}"]
`
	got := mustParse(t, src, map[string]string{"A": "from-env"})
	if diff := cmp.Diff(config.PlainKeys("from-env", "plain"), got.Auth.Keys); diff != "" {
		t.Errorf("auth.keys (-want +got):\n%s", diff)
	}
	if got.Auth.AdminKeys != nil {
		t.Errorf("auth.admin_keys = %v, want none", got.Auth.AdminKeys)
	}
}

func TestParseParameters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, params string
		want         string
	}{{
		name: "key order and types kept",
		params: `
      type: object
      properties:
        zeta: {type: integer, minimum: 1, maximum: 7}
        alpha: {type: string, description: "${DESC}", default: "3"}
        ratio: {type: number, multipleOf: 0.5}
        flag: {type: boolean, default: false}
        opt: {type: ["string", "null"], default: null}
      required: [zeta]`,
		want: `{"type":"object","properties":{"zeta":{"type":"integer","minimum":1,"maximum":7},` +
			`"alpha":{"type":"string","description":"a: b","default":"3"},` +
			`"ratio":{"type":"number","multipleOf":0.5},"flag":{"type":"boolean","default":false},` +
			`"opt":{"type":["string","null"],"default":null}},"required":["zeta"]}`,
	}, {
		name:   "type absent is accepted as written",
		params: ` {properties: {q: {type: string}}}`,
		want:   `{"properties":{"q":{"type":"string"}}}`,
	}, {
		name: "aliases expand",
		params: `
      type: object
      $defs: {city: &city {type: string, minLength: 1}}
      properties: {from: *city, to: *city}`,
		want: `{"type":"object","$defs":{"city":{"type":"string","minLength":1}},` +
			`"properties":{"from":{"type":"string","minLength":1},"to":{"type":"string","minLength":1}}}`,
	}, {
		name:   "timestamps stay text",
		params: ` {type: object, properties: {d: {type: string, default: 2024-01-02}}}`,
		want:   `{"type":"object","properties":{"d":{"type":"string","default":"2024-01-02"}}}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := "tools:\n  - name: t\n    webhook: {url: \"http://h/\"}\n    parameters:" + tc.params + "\n"
			cfg := mustParse(t, src, map[string]string{"DESC": "a: b"})
			if got := string(cfg.Tools[0].Parameters); got != tc.want {
				t.Errorf("parameters:\n got %s\nwant %s", got, tc.want)
			}
			if !json.Valid(cfg.Tools[0].Parameters) {
				t.Errorf("parameters are not valid JSON")
			}
		})
	}
}

func TestParseDefaultParameters(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, "tools:\n  - name: t\n    webhook: {url: \"http://h/\"}\n", nil)
	if diff := cmp.Diff(string(config.DefaultToolEntry().Parameters), string(cfg.Tools[0].Parameters)); diff != "" {
		t.Errorf("parameters (-want +got):\n%s", diff)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "toolstream.yaml")
	if err := os.WriteFile(path, []byte("listen: 127.0.0.1:9999\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if cfg.Listen != "127.0.0.1:9999" || cfg.File != path {
		t.Errorf("Load = listen %q file %q, want 127.0.0.1:9999 and %q", cfg.Listen, cfg.File, path)
	}
}

func TestLoadMissingFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nope.yaml")
	_, err := config.Load(path)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load(missing) = %v, want an error wrapping fs.ErrNotExist", err)
	}
	want := path + ": cannot read configuration: no such file or directory"
	if err.Error() != want {
		t.Errorf("Load(missing) error:\n got %q\nwant %q", err.Error(), want)
	}
}

// TestExampleLoads keeps config.example.yaml honest: it must load with
// nothing set in the environment, and document every key.
func TestExampleLoads(t *testing.T) {
	t.Parallel()
	const path = "../config.example.yaml"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(path, data, env(nil))
	if err != nil {
		t.Fatalf("config.example.yaml with an empty environment:\n%v", err)
	}
	if len(cfg.Upstreams) == 0 || len(cfg.Tools) == 0 {
		t.Errorf("example has %d upstreams and %d tools, want some of each", len(cfg.Upstreams), len(cfg.Tools))
	}
	for _, key := range yamlKeys(t, config.Config{}) {
		if !strings.Contains(string(data), key+":") {
			t.Errorf("config.example.yaml does not mention %s", key)
		}
	}
}

// yamlKeys lists every yaml key of v's type, nested ones included.
func yamlKeys(t *testing.T, v any) []string {
	t.Helper()
	var keys []string
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(rt reflect.Type) {
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice {
			rt = rt.Elem()
		}
		if rt.Kind() != reflect.Struct || seen[rt] {
			return
		}
		seen[rt] = true
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			keys = append(keys, name)
			if rt.Field(i).Type != reflect.TypeFor[json.RawMessage]() {
				walk(rt.Field(i).Type)
			}
		}
	}
	walk(reflect.TypeOf(v))
	return keys
}
