package agents_test

import (
	"testing"
)

// qwen is Qwen Code on /v1/chat/completions, configured by its
// environment variables (docs/agents.md). Its shell call sleeps after
// printing: Qwen Code 0.24.4 now and then reads no output from a command
// that exits at once (a third of the runs on a loaded machine), and
// the turn would fail for Qwen Code's reason, not the proxy's.
var qwen = agent{
	name: "qwen-code", bin: "qwen",
	shell:     "run_shell_command",
	shellArgs: `{"command": "echo agent-shell-ok | tr a-z A-Z; sleep 0.5", "description": "Print the build marker", "is_background": false}`,
	setup: func(t *testing.T, r *agentRun) (args, env []string) {
		writeFile(t, r.home, ".qwen/settings.json", `{"security": {"auth": {"selectedType": "openai"}}, "privacy": {"usageStatisticsEnabled": false}}`)
		return []string{"--yolo", "--auth-type", "openai", r.prompt}, []string{
			"OPENAI_BASE_URL=" + r.base + "/v1",
			"OPENAI_API_KEY=" + clientKey,
			"OPENAI_MODEL=" + r.model,
		}
	},
}

// opencode is opencode on /v1/chat/completions, with toolstream as an
// OpenAI-compatible provider in its opencode.json.
var opencode = agent{
	name: "opencode", bin: "opencode",
	shell:     "bash",
	shellArgs: `{"command": "echo agent-shell-ok | tr a-z A-Z", "description": "Print the build marker"}`,
	setup: func(t *testing.T, r *agentRun) (args, env []string) {
		writeFile(t, r.home, ".config/opencode/opencode.json", `{
  "$schema": "https://opencode.ai/config.json",
  "provider": {
    "toolstream": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "toolstream",
      "options": {"baseURL": "`+r.base+`/v1", "apiKey": "{env:TOOLSTREAM_KEY}"},
      "models": {"`+r.model+`": {"name": "`+r.model+`"}}
    }
  },
  "model": "toolstream/`+r.model+`",
  "small_model": "toolstream/`+r.model+`",
  "permission": {"bash": "allow", "edit": "allow"},
  "autoupdate": false,
  "share": "disabled"
}`)
		return []string{"run", "--model", "toolstream/" + r.model, r.prompt}, []string{
			"TOOLSTREAM_KEY=" + clientKey,
			"OPENCODE_DISABLE_AUTOUPDATE=1",
		}
	},
}

// pi is pi on /v1/chat/completions, with toolstream as a provider in
// its models.json.
var pi = agent{
	name: "pi", bin: "pi",
	shell:     "bash",
	shellArgs: `{"command": "echo agent-shell-ok | tr a-z A-Z"}`,
	setup: func(t *testing.T, r *agentRun) (args, env []string) {
		writeFile(t, r.home, ".pi/agent/models.json", `{
  "providers": {
    "toolstream": {
      "baseUrl": "`+r.base+`/v1",
      "api": "openai-completions",
      "apiKey": "TOOLSTREAM_KEY",
      "models": [{"id": "`+r.model+`"}]
    }
  }
}`)
		return []string{"--offline", "--no-session", "--provider", "toolstream", "--model", r.model, "-p", r.prompt}, []string{
			"TOOLSTREAM_KEY=" + clientKey,
		}
	},
}

// claude is Claude Code on /v1/messages, configured by its environment
// variables.
var claude = agent{
	name: "claude-code", bin: "claude",
	shell:     "Bash",
	shellArgs: `{"command": "echo agent-shell-ok | tr a-z A-Z", "description": "Print the build marker"}`,
	setup: func(t *testing.T, r *agentRun) (args, env []string) {
		return []string{"-p", "--permission-mode", "bypassPermissions", r.prompt}, []string{
			"ANTHROPIC_BASE_URL=" + r.base,
			"ANTHROPIC_API_KEY=" + clientKey,
			"ANTHROPIC_MODEL=" + r.model,
			"ANTHROPIC_DEFAULT_HAIKU_MODEL=" + r.model,
			"IS_SANDBOX=1",
			"DISABLE_AUTOUPDATER=1",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		}
	},
}
