package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
)

// TestExpand covers ${VAR} expansion through Parse, in a string value
// (storage.path) and inside a list (upstreams[0].models).
func TestExpand(t *testing.T) {
	t.Parallel()
	vars := map[string]string{
		"DIR":    "/var/lib/ts",
		"EMPTY":  "",
		"COLON":  "a: b",
		"LINES":  "one\ntwo: 2\n- three",
		"HASH":   "x # not a comment",
		"NESTED": "${DIR}",
		"MODEL":  "qwen*",
	}
	for _, tc := range []struct {
		name, value, want string
	}{
		{"set", "${DIR}", "/var/lib/ts"},
		{"set, inside text", "data-${DIR}-x", "data-/var/lib/ts-x"},
		{"twice", "${DIR}${DIR}", "/var/lib/ts/var/lib/ts"},
		{"unset with default", "${NOPE:-./data}", "./data"},
		{"empty with default", "${EMPTY:-./data}", "./data"},
		{"set ignores default", "${DIR:-./data}", "/var/lib/ts"},
		{"default may hold colons", "${NOPE:-http://x:1/a}", "http://x:1/a"},
		{"colon stays in the string", "${COLON}", "a: b"},
		{"newlines stay in the string", "${LINES}", "one\ntwo: 2\n- three"},
		{"hash is not a comment", "${HASH}", "x # not a comment"},
		{"not expanded twice", "${NESTED}", "${DIR}"},
		{"escape", "$${DIR}", "${DIR}"},
		{"lone dollars kept", "pa$$w$rd", "pa$$w$rd"},
		{"dollar without brace", "$DIR", "$DIR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := "storage:\n  path: \"" + tc.value + "\"\n"
			if got := mustParse(t, src, vars).Storage.Path; got != tc.want {
				t.Errorf("storage.path %q expanded to %q, want %q", tc.value, got, tc.want)
			}
		})
	}

	t.Run("list items and plain scalars", func(t *testing.T) {
		t.Parallel()
		src := "upstreams:\n  - name: u\n    base_url: http://h/v1\n    models: [\"${MODEL}\", llama*]\n    headers:\n      X-A: ${COLON}\n"
		cfg := mustParse(t, src, vars)
		if diff := cmp.Diff(config.Models("qwen*", "llama*"), cfg.Upstreams[0].Models); diff != "" {
			t.Errorf("models (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]string{"X-A": "a: b"}, cfg.Upstreams[0].Headers); diff != "" {
			t.Errorf("headers (-want +got):\n%s", diff)
		}
	})

	t.Run("typed values", func(t *testing.T) {
		t.Parallel()
		src := "loop:\n  max_rounds: ${R}\n  tool_timeout: ${T:-45s}\n  parallel_tools: ${P}\n  max_block_bytes: ${B}\n"
		cfg := mustParse(t, src, map[string]string{"R": "3", "P": "true", "B": "2MiB"})
		l := cfg.Loop
		if l.MaxRounds != 3 || l.ToolTimeout.String() != "45s" || !l.ParallelTools || l.MaxBlockBytes.String() != "2MiB" {
			t.Errorf("loop = %+v, want max_rounds 3, tool_timeout 45s, parallel_tools, max_block_bytes 2MiB", l)
		}
	})

	t.Run("keys are never expanded", func(t *testing.T) {
		t.Parallel()
		got := problems(t, "${KEY}: 1\n", map[string]string{"KEY": "listen"})
		want := []string{`t.yaml:1:1: ${KEY}: unknown key (want one of auth, default_upstream, hosted_tools, listen, log, loop, max_request_bytes, mcp_servers, openapi_tools, otel, policies, read_body_timeout, read_idle_timeout, shutdown_grace, storage, tools, upstreams, write_idle_timeout)`}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("problems (-want +got):\n%s", diff)
		}
	})
}

func TestExpandProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		want      []string
	}{{
		name: "unset without default names the variable",
		src:  "auth:\n  keys: [\"${TOOLSTREAM_KEY}\"]\n",
		want: []string{`t.yaml:2:10: auth.keys[0]: environment variable TOOLSTREAM_KEY is not set (use ${TOOLSTREAM_KEY:-} to allow empty)`},
	}, {
		name: "every unset variable of a value",
		src:  "listen: ${HOST}:${PORT}\n",
		want: []string{
			`t.yaml:1:9: listen: environment variable HOST is not set (use ${HOST:-} to allow empty)`,
			`t.yaml:1:9: listen: environment variable PORT is not set (use ${PORT:-} to allow empty)`,
		},
	}, {
		name: "unterminated",
		src:  "listen: \"${HOST\"\n",
		want: []string{`t.yaml:1:9: listen: unterminated "${HOST" (write ${NAME} or ${NAME:-default}; $${ for a literal ${)`},
	}, {
		name: "bad name",
		src:  "listen: \"${1X}\"\n",
		want: []string{`t.yaml:1:9: listen: invalid reference ${1X} (write ${NAME} or ${NAME:-default} with NAME of letters, digits and _; $${ for a literal ${)`},
	}, {
		name: "other shell forms are refused",
		src:  "listen: \"${X:?required}\"\n",
		want: []string{`t.yaml:1:9: listen: invalid reference ${X:?required} (write ${NAME} or ${NAME:-default} with NAME of letters, digits and _; $${ for a literal ${)`},
	}, {
		name: "empty reference",
		src:  "listen: \"${}\"\n",
		want: []string{`t.yaml:1:9: listen: invalid reference ${} (write ${NAME} or ${NAME:-default} with NAME of letters, digits and _; $${ for a literal ${)`},
	}, {
		name: "inside parameters",
		src:  "tools:\n  - name: t\n    webhook: {url: \"http://h/\"}\n    parameters: {type: object, description: \"${DESC}\"}\n",
		want: []string{`t.yaml:4:45: tools[0].parameters.description: environment variable DESC is not set (use ${DESC:-} to allow empty)`},
	}, {
		name: "an anchored value is reported once",
		src:  "auth:\n  keys: [&k \"${K}\", *k]\n",
		want: []string{`t.yaml:2:10: auth.keys[0]: environment variable K is not set (use ${K:-} to allow empty)`},
	}, {
		name: "LiteLLM syntax gets a hint",
		src:  "upstreams:\n  - name: o\n    base_url: https://api.openai.com/v1\n    api_key: os.environ/OPENAI_API_KEY\n",
		want: []string{`t.yaml:4:14: upstreams[0].api_key: "os.environ/OPENAI_API_KEY" is LiteLLM syntax; write ${OPENAI_API_KEY}`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, problems(t, tc.src, nil)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
