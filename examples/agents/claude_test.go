package agents_test

import (
	"strings"
	"testing"
)

// TestClaudeCode runs Claude Code's turns beyond the plain one of
// TestThreeRounds, in native and text mode: the same turn with
// ENABLE_TOOL_SEARCH=true (its deferred tools and tool_reference blocks),
// and a WebSearch, which Claude Code runs as a request of its own that
// offers the hosted web_search tool: toolstream runs the search webhook
// hosted_tools binds to it (testdata/websearch.yaml), once, with the
// query, and the answer holds its result.
func TestClaudeCode(t *testing.T) {
	for _, model := range []string{nativeModel, textModel} {
		mode := strings.TrimSuffix(model, "-model")
		t.Run("tool-search/"+mode, func(t *testing.T) {
			t.Parallel()
			claudeToolSearch(t, model)
		})
		t.Run("web-search/"+mode, func(t *testing.T) {
			t.Parallel()
			claudeWebSearch(t, model)
		})
	}
}

// claudeToolSearch runs a turn with ENABLE_TOOL_SEARCH=true in which the
// model loads one of Claude Code's deferred tools (CronList) with its
// ToolSearch tool and calls it, then runs the shell and the server tool.
// A deferred tool, the DeferredToolPlaceholder included, must not reach
// the model before a tool_reference names it.
func claudeToolSearch(t *testing.T, model string) {
	steps := []step{
		{tool: named("ToolSearch"), args: `{"query": "select:CronList", "max_results": 5}`},
		{tool: named("CronList"), args: `{}`},
		{tool: named(claude.shell), args: claude.shellArgs, expect: shellOutput},
		{tool: named("get_token"), args: `{}`, expect: "tok-"},
	}
	res := runAgent(t, claude, run{model: model, steps: steps, env: []string{"ENABLE_TOOL_SEARCH=true"}})
	if res.err != nil {
		t.Fatal(res.err)
	}
	if !strings.Contains(res.out, res.token) {
		t.Errorf("the answer has no token %s:\n%s", res.token, res.out)
	}
	if len(res.calls) != 1 {
		t.Errorf("get_token ran %d times, want once", len(res.calls))
	}
	loaded := false
	for i, u := range res.upstream {
		for _, name := range offeredTools(u.Body) {
			switch name {
			case "DeferredToolPlaceholder":
				t.Errorf("upstream request %d offers DeferredToolPlaceholder", i+1)
			case "CronList":
				loaded = true
			}
		}
		if i == 0 && loaded {
			t.Errorf("the first upstream request offers the deferred CronList")
		}
	}
	if !loaded {
		t.Errorf("no upstream request offers CronList after ToolSearch loaded it")
	}
}

// webQuery is what the model searches the web for.
const webQuery = "toolstream build token"

func claudeWebSearch(t *testing.T, model string) {
	// WebSearch is one of Claude Code's deferred tools: the model loads
	// it with ToolSearch first, as the system message tells it to.
	steps := []step{
		{tool: named("ToolSearch"), args: `{"query": "select:WebSearch", "max_results": 5}`},
		{tool: named("WebSearch"), args: `{"query": "` + webQuery + `"}`, expect: "tok-"},
	}
	// WebSearch's own request: the model calls the hosted tool.
	search := []step{{tool: named("web_search"), args: `{"query": "` + webQuery + `"}`, expect: "tok-"}}
	res := runAgent(t, claude, run{model: model, steps: steps, more: [][]step{search}, config: "testdata/websearch.yaml"})
	checkSearch(t, res)
}

// checkSearch checks a run whose last step was a bound web search: the
// agent exited well, the search webhook ran once with the query, and
// the answer holds its result.
func checkSearch(t *testing.T, res result) {
	t.Helper()
	if res.err != nil {
		t.Fatal(res.err)
	}
	if !strings.Contains(res.out, res.token) {
		t.Errorf("the answer has no token %s:\n%s", res.token, res.out)
	}
	if len(res.calls) != 1 || !strings.Contains(res.calls[0], webQuery) {
		t.Errorf("the search webhook got %d calls, want one with the query %q: %q", len(res.calls), webQuery, res.calls)
	}
}
