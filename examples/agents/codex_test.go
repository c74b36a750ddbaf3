package agents_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codexModel is the model Codex asks for in these tests. Codex picks its
// tools by the model's name: for a name it knows (gpt-5.5) it offers its
// exec_command shell, the freeform apply_patch tool and tool_search over
// its MCP servers' tools, as it would to OpenAI; toolstream sends it on to default_upstream. docs/agents.md
// shows the same with an alias in front of a local model.
const codexModel = "gpt-5.5"

// envMCPEverything is the reference MCP server's entry point, which
// .ci/run installs for toolhost/mcp's test; the MCP scenario configures
// it in Codex.
const envMCPEverything = "TOOLSTREAM_MCP_EVERYTHING"

// codex is Codex CLI on /v1/responses, with toolstream as a provider in
// its config.toml. Text mode is asked for with the X-Toolstream-Mode
// header, from the provider's http_headers.
var codex = agent{
	name: "codex", bin: "codex",
	shell:     "exec_command",
	shellArgs: `{"cmd": "echo agent-shell-ok | tr a-z A-Z"}`,
	setup:     codexSetup(codexModel, ""),
}

// codexSetup writes Codex's config.toml: toolstream as its provider,
// model (none: Codex's own default), and extra (MCP servers, say).
func codexSetup(model, extra string) func(t *testing.T, r *agentRun) (args, env []string) {
	return func(t *testing.T, r *agentRun) (args, env []string) {
		var b strings.Builder
		if model != "" {
			b.WriteString(`model = "` + model + `"` + "\n")
		}
		b.WriteString(`model_provider = "toolstream"

[model_providers.toolstream]
name = "toolstream"
base_url = "` + r.base + `/v1"
env_key = "TOOLSTREAM_KEY"
wire_api = "responses"
`)
		if r.model == textModel {
			b.WriteString(`http_headers = { "X-Toolstream-Mode" = "text" }` + "\n")
		}
		b.WriteString(extra)
		writeFile(t, r.home, ".codex/config.toml", b.String())
		return codexArgs(r), []string{
			"TOOLSTREAM_KEY=" + clientKey,
			"CODEX_HOME=" + filepath.Join(r.home, ".codex"),
		}
	}
}

// codexArgs run one turn of r's prompt without asking for approvals,
// outside a git repository; the namespace already keeps the agent off
// the network.
func codexArgs(r *agentRun) []string {
	return []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", r.prompt}
}

// TestCodex runs stock Codex's turns beyond TestThreeRounds' (its shell
// tool and a server tool) through serve, in native and text mode: a tool
// of an MCP server configured in Codex (a namespace tool); an apply_patch
// that creates a file; Codex's own default model (its code-mode exec
// tool); its web_search bound with hosted_tools; and, native, the
// built-in OpenAI provider pointed at serve.
func TestCodex(t *testing.T) {
	for _, model := range []string{nativeModel, textModel} {
		mode := strings.TrimSuffix(model, "-model")
		t.Run("mcp/"+mode, func(t *testing.T) {
			t.Parallel()
			codexMCP(t, model)
		})
		t.Run("apply_patch/"+mode, func(t *testing.T) {
			t.Parallel()
			codexApplyPatch(t, model)
		})
		t.Run("default-model/"+mode, func(t *testing.T) {
			t.Parallel()
			codexDefaultModel(t, model)
		})
		t.Run("web-search/"+mode, func(t *testing.T) {
			t.Parallel()
			codexWebSearch(t, model)
		})
	}
	t.Run("builtin-provider", func(t *testing.T) {
		t.Parallel()
		a := codex
		a.setup = codexBuiltin
		res := threeRounds(t, a, run{model: nativeModel})
		upgrades := 0
		for _, s := range res.sent {
			if s.Method == "GET" && strings.EqualFold(s.Header.Get("Upgrade"), "websocket") {
				upgrades++
			}
		}
		if upgrades > 1 {
			t.Errorf("Codex tried the WebSocket %d times; after a 426 it should go to HTTP at once", upgrades)
		}
	})
}

// codexBuiltin points Codex's built-in OpenAI provider at serve:
// openai_base_url in config.toml (Codex 0.171 does not read the
// OPENAI_BASE_URL variable), and the key in CODEX_API_KEY, which codex
// exec reads (it does not read OPENAI_API_KEY; interactive codex takes the
// key from codex login --with-api-key). This provider tries a WebSocket
// first: serve's 426 sends it to HTTP at once.
func codexBuiltin(t *testing.T, r *agentRun) (args, env []string) {
	home := filepath.Join(r.home, ".codex")
	writeFile(t, r.home, ".codex/config.toml", `model = "`+codexModel+`"
openai_base_url = "`+r.base+`/v1"
`)
	return codexArgs(r), []string{"CODEX_HOME=" + home, "CODEX_API_KEY=" + clientKey}
}

// codexMCP has Codex run the reference MCP server, whose tools Codex
// defers: the model finds them with Codex's tool_search, which adds them
// in a namespace (mcp__everything), then calls its echo tool; the answer
// holds the echo.
func codexMCP(t *testing.T, model string) {
	server := os.Getenv(envMCPEverything)
	if server == "" {
		if os.Getenv(envRequire) != "" {
			t.Fatal(envMCPEverything + " is not set (.ci/run installs the reference MCP server and sets it)")
		}
		t.Skip(envMCPEverything + " is not set (.ci/run installs the reference MCP server and sets it)")
	}
	a := codex
	a.setup = codexSetup(codexModel, `
[mcp_servers.everything]
command = "node"
args = ["`+server+`"]
`)
	echo := func(offered []string) string {
		for _, o := range offered {
			if strings.Contains(o, "everything") && strings.HasSuffix(o, "echo") {
				return o
			}
		}
		return ""
	}
	search := func(offered []string) string {
		for _, o := range offered {
			if strings.Contains(o, "tool_search") {
				return o
			}
		}
		return ""
	}
	steps := []step{
		{tool: search, args: `{"query": "echo", "limit": 5}`, expect: "echo"},
		{tool: echo, args: `{"message": "codex-mcp-ok"}`, expect: "codex-mcp-ok"},
	}
	res := runAgent(t, a, run{model: model, steps: steps})
	if res.err != nil {
		t.Fatal(res.err)
	}
	if !strings.Contains(res.out, "Echo: codex-mcp-ok") {
		t.Errorf("the answer has no Echo: codex-mcp-ok:\n%s", res.out)
	}
}

// patch is the apply_patch input that creates hello.txt.
const patch = "*** Begin Patch\n*** Add File: hello.txt\n+hello from apply_patch\n*** End Patch\n"

// codexApplyPatch has the model call Codex's freeform apply_patch tool
// with a patch that adds a file: the file must be there after the turn.
func codexApplyPatch(t *testing.T, model string) {
	args := `{"input": ` + jsonString(patch) + `}`
	steps := []step{{tool: named("apply_patch"), args: args, expect: "hello.txt"}}
	res := runAgent(t, codex, run{model: model, steps: steps})
	if res.err != nil {
		t.Fatal(res.err)
	}
	got, err := os.ReadFile(filepath.Join(res.work, "hello.txt"))
	if err != nil {
		t.Fatalf("apply_patch made no file: %v\n%s", err, res.out)
	}
	if string(got) != "hello from apply_patch\n" {
		t.Errorf("hello.txt holds %q", got)
	}
}

// codexDefaultModel runs Codex with no model configured: it asks for its
// own default, which offers no tools but one freeform exec tool (in an
// additional_tools input item) that runs JavaScript calling the others.
// The model runs the shell through it, then calls the server tool.
func codexDefaultModel(t *testing.T, model string) {
	a := codex
	a.setup = codexSetup("", "")
	js := `const r = await tools.exec_command({cmd: "echo agent-shell-ok | tr a-z A-Z"}); text(JSON.stringify(r));`
	exec := func(offered []string) string {
		for _, o := range offered {
			if o == "exec" || strings.HasSuffix(o, "__exec") || strings.HasSuffix(o, ".exec") {
				return o
			}
		}
		return ""
	}
	steps := []step{
		{tool: exec, args: `{"input": ` + jsonString(js) + `}`, expect: shellOutput},
		{tool: named("get_token"), args: `{}`, expect: "tok-"},
	}
	checkTurn(t, runAgent(t, a, run{model: model, steps: steps}))
}

// codexWebSearch has the model call Codex's hosted web_search, which
// testdata/websearch.yaml binds to a search webhook: the webhook runs
// once with the query, and the answer holds its result.
func codexWebSearch(t *testing.T, model string) {
	steps := []step{{tool: named("web_search"), args: `{"query": "` + webQuery + `"}`, expect: "tok-"}}
	res := runAgent(t, codex, run{model: model, steps: steps, config: "testdata/websearch.yaml"})
	checkSearch(t, res)
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
