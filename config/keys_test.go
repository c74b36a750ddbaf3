package config_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
)

// hashOf is the "sha256:" form of a key.
func hashOf(key string) string {
	d := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(d[:])
}

// TestParseKeys pins how auth.keys entries decode: a string is a plain
// key, a mapping a named entry; a list written empty stays empty (none
// allowed) while one left out stays nil (all allowed); entries whose key
// expands to empty are dropped.
func TestParseKeys(t *testing.T) {
	t.Parallel()
	src := `
auth:
  keys:
    - ${PLAIN}
    - name: kanban-app
      key: ` + hashOf("sk-kanban") + `
      models: ["qwen*", "fast"]
      tools: ["create_card", "move_card"]
      limits: {requests_per_minute: 60, tokens_per_minute: 200000, concurrent_turns: 4}
    - name: no-tools
      key: sk-two
      tools: []
    - name: everything
      key: sk-three
      tools: ~
    - name: off
      key: ${UNSET:-}
      tools: [x]
    - ${UNSET:-}
`
	got := mustParse(t, src, map[string]string{"PLAIN": "sk-plain"})
	want := []config.ClientKey{
		{Key: "sk-plain"},
		{
			Name: "kanban-app", Key: config.Secret(hashOf("sk-kanban")),
			Models: []string{"qwen*", "fast"}, Tools: []string{"create_card", "move_card"},
			Limits: config.Limits{RequestsPerMinute: 60, TokensPerMinute: 200000, ConcurrentTurns: 4},
		},
		{Name: "no-tools", Key: "sk-two", Tools: []string{}},
		{Name: "everything", Key: "sk-three"},
	}
	// cmp tells a nil list from an empty one, which is the point here.
	if diff := cmp.Diff(want, got.Auth.Keys); diff != "" {
		t.Errorf("auth.keys (-want +got):\n%s", diff)
	}
	if k := got.Auth.Keys[2]; k.Tools == nil || !k.Scoped() {
		t.Errorf("tools: [] decoded to %#v, want an empty list (no server tools)", k.Tools)
	}
	if k := got.Auth.Keys[3]; k.Tools != nil || k.Models != nil || k.Scoped() {
		t.Errorf("entry without scopes decoded to tools %#v, models %#v, want nil (all)", k.Tools, k.Models)
	}
}

// TestKeyProblems breaks each rule of auth.keys once and pins the whole
// message and its line:col.
func TestKeyProblems(t *testing.T) {
	t.Parallel()
	const head = "auth:\n  keys:\n"
	for _, tc := range []struct {
		name string
		src  string
		vars map[string]string
		want []string
	}{
		// Decoding.
		{"entry a list", head + "    - [a, b]\n", nil, []string{
			`t.yaml:3:7: auth.keys[0]: want a key, or a named entry like {name: ci, key: "${CI_KEY}"}, got a list`}},
		{"unknown key in a named entry", head + "    - {name: a, key: k, rpm: 5}\n", nil, []string{
			`t.yaml:3:25: auth.keys[0].rpm: unknown key (want one of key, limits, models, name, tools)`}},
		{"unknown limit", head + "    - name: a\n      key: k\n      limits: {request_per_minute: 5}\n", nil, []string{
			`t.yaml:5:16: auth.keys[0].limits.request_per_minute: unknown key (did you mean requests_per_minute?)`}},
		{"limit not a number", head + "    - name: a\n      key: k\n      limits: {concurrent_turns: many}\n", nil, []string{
			`t.yaml:5:34: auth.keys[0].limits.concurrent_turns: want an integer, got "many"`}},
		{"tools a single value", head + "    - name: a\n      key: k\n      tools: create_card\n", nil, []string{
			`t.yaml:5:14: auth.keys[0].tools: want a list, got the single value "create_card" (write ["create_card"] for a list of one)`}},
		{"keys a single value", "auth:\n  keys: sk-not-a-list\n", nil, []string{
			`t.yaml:2:9: auth.keys: want a list, got a single value (write it in [ ] for a list of one)`}},
		{"named entry without key", head + "    - name: a\n      models: [\"*\"]\n", nil, []string{
			`t.yaml:3:7: auth.keys[0].key: required (the key, or "sha256:" and the 64 hex digits of its SHA-256)`}},
		{"named entry with a null key", head + "    - {name: a, key: ~}\n", nil, []string{
			`t.yaml:3:7: auth.keys[0].key: required (the key, or "sha256:" and the 64 hex digits of its SHA-256)`}},
		{"named entry without name", head + "    - key: k\n      tools: []\n", nil, []string{
			`t.yaml:3:7: auth.keys[0].name: required for a named entry (a short name like kanban-app, which logs and metrics show for the key)`}},
		{"named entry with an empty name", head + "    - {name: \"\", key: k}\n", nil, []string{
			`t.yaml:3:7: auth.keys[0].name: required for a named entry (a short name like kanban-app, which logs and metrics show for the key)`}},
		{"named entry with an unset key variable", head + "    - {name: a, key: \"${K}\"}\n", nil, []string{
			`t.yaml:3:22: auth.keys[0].key: environment variable K is not set (use ${K:-} to allow empty)`}},

		// Names.
		{"name charset", head + "    - {name: kanban app, key: k}\n", nil, []string{
			`t.yaml:3:14: auth.keys[0].name: "kanban app" must be 1 to 64 letters, digits, '_', '-' or '.'`}},
		{"name too long", head + "    - {name: " + strings.Repeat("a", 65) + ", key: k}\n", nil, []string{
			`t.yaml:3:14: auth.keys[0].name: "` + strings.Repeat("a", 65) + `" must be 1 to 64 letters, digits, '_', '-' or '.'`}},
		{"name reserved", head + "    - {name: key_1a2b, key: k}\n", nil, []string{
			`t.yaml:3:14: auth.keys[0].name: "key_1a2b" starts with "key_", which is reserved: logs and metrics name plain keys key_ and the start of their hash`}},
		{"name duplicate", head + "    - {name: a, key: k1}\n    - name: a\n      key: k2\n", nil, []string{
			`t.yaml:4:13: auth.keys[1].name: duplicate key name "a" (first at line 3)`}},

		// Keys.
		{"key twice", head + "    - k1\n    - k1\n", nil, []string{
			`t.yaml:4:7: auth.keys[1]: duplicate key (first at line 3; a key and its sha256: form are the same key)`}},
		{"key plain and as its sha256", head + "    - k1\n    - " + hashOf("k1") + "\n", nil, []string{
			`t.yaml:4:7: auth.keys[1]: duplicate key (first at line 3; a key and its sha256: form are the same key)`}},
		{"key sha256 in either case", head + "    - " + hashOf("k1") + "\n    - sha256:" + strings.ToUpper(hashOf("k1")[7:]) + "\n", nil, []string{
			`t.yaml:4:7: auth.keys[1]: duplicate key (first at line 3; a key and its sha256: form are the same key)`}},
		{"key plain and in a named entry", head + "    - \"${K}\"\n    - name: a\n      key: \"${K}\"\n", map[string]string{"K": "k1"}, []string{
			`t.yaml:5:12: auth.keys[1].key: duplicate key (first at line 3; a key and its sha256: form are the same key)`}},
		{"key in two named entries", head + "    - {name: a, key: " + hashOf("k1") + "}\n    - {name: b, key: k1}\n", nil, []string{
			`t.yaml:4:22: auth.keys[1].key: duplicate key (first at line 3; a key and its sha256: form are the same key)`}},
		{"named key with a bad sha256", head + "    - {name: a, key: \"sha256:12\"}\n", nil, []string{
			`t.yaml:3:22: auth.keys[0].key: sha256 key must be "sha256:" and 64 hex digits (the SHA-256 of the key), got 2 characters after the prefix`}},
		{"named key with a trailing newline", head + "    - {name: a, key: \"${K}\"}\n", map[string]string{"K": "k1\n"}, []string{
			`t.yaml:3:22: auth.keys[0].key: key contains whitespace or control characters (check the variable's value for a trailing newline)`}},

		// Scopes and limits.
		{"models bad glob", head + "    - {name: a, key: k, models: [\"qwen*\", \"llama[3\"]}\n", nil, []string{
			`t.yaml:3:43: auth.keys[0].models[1]: bad pattern "llama[3" (path.Match syntax: * any run, ? one character, [a-z] a class, \ escapes)`}},
		{"models empty glob", head + "    - {name: a, key: k, models: [\"\"]}\n", nil, []string{
			`t.yaml:3:34: auth.keys[0].models[0]: empty pattern (want e.g. gpt-* or llama3.1:8b)`}},
		{"tools empty glob", head + "    - {name: a, key: k, tools: [\"\"]}\n", nil, []string{
			`t.yaml:3:33: auth.keys[0].tools[0]: empty pattern (want a tool name or a glob like kanban_*; tools: [] allows none)`}},
		{"tools bad glob", head + "    - {name: a, key: k, tools: [\"[a-\"]}\n", nil, []string{
			`t.yaml:3:33: auth.keys[0].tools[0]: bad pattern "[a-" (path.Match syntax: * any run, ? one character, [a-z] a class, \ escapes)`}},
		{"negative limits", head + "    - name: a\n      key: k\n      limits:\n        requests_per_minute: -1\n        tokens_per_minute: -2\n        concurrent_turns: -3\n", nil, []string{
			`t.yaml:6:30: auth.keys[0].limits.requests_per_minute: must not be negative, got -1 (0 means no limit)`,
			`t.yaml:7:28: auth.keys[0].limits.tokens_per_minute: must not be negative, got -2 (0 means no limit)`,
			`t.yaml:8:27: auth.keys[0].limits.concurrent_turns: must not be negative, got -3 (0 means no limit)`}},

		// A named entry turned off leaves no key.
		{"open because the named key is empty", "listen: :8080\n" + head + "    - {name: a, key: \"${K:-}\"}\n", nil, []string{
			`t.yaml:3:3: auth.keys: no client keys while listen ":8080" is not loopback: anyone who can reach it may use the upstreams (set auth.keys, or auth.allow_open: true to allow it)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, problems(t, tc.src, tc.vars)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKeysAccepted pins the edges of the rules from the valid side.
func TestKeysAccepted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, src string }{
		{"name at the edges", "auth:\n  keys:\n    - {name: " + strings.Repeat("a", 64) + ", key: k1}\n    - {name: a.B_c-1, key: k2}\n    - {name: keyring, key: k3}\n"},
		{"named key on a public address", "listen: :8080\nauth:\n  keys:\n    - {name: a, key: " + hashOf("k") + "}\n"},
		{"zero limits", "auth:\n  keys:\n    - {name: a, key: k, limits: {requests_per_minute: 0, tokens_per_minute: 0, concurrent_turns: 0}}\n"},
		{"two entries turned off", "auth:\n  keys:\n    - \"${A:-}\"\n    - \"${B:-}\"\n    - {name: a, key: \"${A:-}\"}\n    - {name: b, key: \"${B:-}\"}\n"},
		{"same key as an admin key", "auth:\n  keys: [k]\n  admin_keys: [k]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mustParse(t, tc.src, nil)
		})
	}
}

// TestKeyProblemsNeverShowTheKey makes every kind of key problem with one
// recognisable key and checks no message carries it, in either form.
func TestKeyProblemsNeverShowTheKey(t *testing.T) {
	t.Parallel()
	const key = "sk-very-secret-key"
	src := `
auth:
  keys:
    - ` + key + `
    - ` + hashOf(key) + `
    - {name: a, key: ` + key + `}
    - {name: key_x, key: "${NL}"}
    - [` + key + `]
    - {name: b, key: ` + key + `, tools: create_card}
  admin_keys: ` + key + `
`
	msgs := strings.Join(problems(t, src, map[string]string{"NL": key + "\n"}), "\n")
	for _, s := range []string{key, hashOf(key)[7:]} {
		if strings.Contains(msgs, s) {
			t.Errorf("a key was printed:\n%s", msgs)
		}
	}
}

// TestCheckClientKey checks one named key the way the admin API does:
// every rule but the key itself, at paths under the given prefix.
func TestCheckClientKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		key  config.ClientKey
		path string
		want []string
	}{
		{"good", config.ClientKey{Name: "ci", Models: []string{"*"}, Tools: []string{}}, "", nil},
		{"no key needed", config.ClientKey{Name: "ci"}, "", nil},
		{"everything wrong", config.ClientKey{
			Name: "key_ci", Models: []string{""}, Tools: []string{"["},
			Limits: config.Limits{RequestsPerMinute: -1, ConcurrentTurns: -2},
		}, "", []string{
			`name: "key_ci" starts with "key_", which is reserved: logs and metrics name plain keys key_ and the start of their hash`,
			`models[0]: empty pattern (want e.g. gpt-* or llama3.1:8b)`,
			`tools[0]: bad pattern "[" (path.Match syntax: * any run, ? one character, [a-z] a class, \ escapes)`,
			`limits.requests_per_minute: must not be negative, got -1 (0 means no limit)`,
			`limits.concurrent_turns: must not be negative, got -2 (0 means no limit)`}},
		{"missing name under a path", config.ClientKey{}, "keys[3]", []string{
			`keys[3].name: required for a named entry (a short name like kanban-app, which logs and metrics show for the key)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, p := range config.CheckClientKey(tc.key, tc.path) {
				if p.File != "" || p.Line != 0 {
					t.Errorf("problem %q has a position", p.String())
				}
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateKeysInCode: keys built in code follow the file's rules, and
// a duplicate points at the first entry by its path.
func TestValidateKeysInCode(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Auth.Keys = []config.ClientKey{
		{Name: "a", Key: "k1"},
		{Name: "a", Key: config.Secret(hashOf("k1"))},
		{Key: "k2", Tools: []string{}},
		{Name: "off"}, // no key: turned off, like an unset ${VAR:-}
	}
	err := cfg.Validate()
	var cerr *config.Error
	if !errors.As(err, &cerr) {
		t.Fatalf("Validate = %v, want *config.Error", err)
	}
	want := []string{
		`auth.keys[1].name: duplicate key name "a" (first at auth.keys[0])`,
		`auth.keys[1].key: duplicate key (first at auth.keys[0]; a key and its sha256: form are the same key)`,
		`auth.keys[2].name: required for a named entry (a short name like kanban-app, which logs and metrics show for the key)`,
	}
	if diff := cmp.Diff(want, strings.Split(err.Error(), "\n")); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
