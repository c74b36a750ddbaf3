package clients_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

const (
	approvalClientKey = "sk-agents-approval"
	approvalAdminKey  = "sk-agents-admin"
)

// TestAgentsApproval runs agents-approval.mjs: an @openai/agents Agent
// with hostedMcpTool({serverLabel: "toolstream", requireApproval:
// "always", onApproval}), run once approved and once rejected, against
// /v1/responses in front of a scripted text-mode model. Each run
// completes in two responses — the first ends on the approval request,
// the second carries the decision — create_task runs once (the approved
// run) and never in the rejected one, whose model reads the denial, and
// the audit log holds both decisions.
func TestAgentsApproval(t *testing.T) {
	modules := nodeModules(t)
	base, hooks := startApprovals(t)
	t.Setenv("TOOLSTREAM_KEY", approvalClientKey)
	out := runNode(t, modules, base+"/v1", "agents-approval.mjs")
	for _, want := range []string{
		"  approval asked: create_task {\"title\":\"Gym\"} → approved\n" +
			`▸ create_task ✓ [toolstream] → {"id":1,"title":"Gym"}` + "\n" +
			"── approved: Done: Gym is on your board. · 2 responses\n",
		"  approval asked: create_task {\"title\":\"Gym\"} → rejected\n" +
			`▸ create_task ✗ [toolstream] → DENIED: the user denied this call: not this week. Do not retry it unless the user asks again.` + "\n" +
			"── rejected: OK, I left your board as it is. · 2 responses\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\n%s", want, out)
		}
	}
	if n := hooks.count(); n != 1 {
		t.Errorf("create_task ran %d times, want once (approved) and never (rejected)", n)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/admin/calls?tool=create_task", nil)
	req.Header.Set("Authorization", "Bearer "+approvalAdminKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var calls struct {
		Data []struct {
			Status   string `json:"status"`
			Approval *struct {
				Decision string `json:"decision"`
			} `json:"approval"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&calls); err != nil {
		t.Fatal(err)
	}
	var decisions []string
	for _, c := range calls.Data {
		if c.Approval != nil {
			decisions = append(decisions, c.Status+"/"+c.Approval.Decision)
		}
	}
	if got := strings.Join(decisions, ","); got != "denied/denied,ok/approved" {
		t.Errorf("audit log decisions (newest first) %q, want the rejected call denied and the approved one run", got)
	}
}

// startApprovals serves the proxy with a store, client and admin keys,
// and the create_task webhook in front of a model that adds the task and
// answers from its result or its denial.
func startApprovals(t *testing.T) (string, *hookCounter) {
	t.Helper()
	hooks := &hookCounter{calls: make(chan struct{}, 100)}
	hooks.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Arguments map[string]any }
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		hooks.calls <- struct{}{}
		body.Arguments["id"] = 1
		json.NewEncoder(w).Encode(body.Arguments)
	}))
	model := upstreamtest.NewFunc(approvalModel)
	yaml := fmt.Sprintf(`auth:
  keys: [%q]
  admin_keys: [%q]
upstreams:
  - name: small
    base_url: %s
    models: ["*"]
    tool_mode: text
    text_format: hermes
tools:
  - name: create_task
    description: Add a task to the user's board.
    parameters:
      type: object
      properties:
        title: {type: string}
      required: [title]
    webhook: {url: "%s/create_task"}
`, approvalClientKey, approvalAdminKey, model.URL, hooks.srv.URL)
	t.Cleanup(func() {
		model.Close()
		hooks.srv.Close()
	})
	base := serveYAML(t, yaml)
	return base, hooks
}

// approvalModel adds the task when create_task is offered, and answers
// from the result it reads back: the task added, or the call denied.
func approvalModel(req upstreamtest.Request) upstreamtest.Round {
	var body struct {
		Messages []struct {
			Content any `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(req.Body, &body)
	all, last := "", ""
	for _, m := range body.Messages {
		last = toText(m.Content)
		all += last + "\n"
	}
	text := "I can't tell."
	switch {
	case strings.Contains(last, "<tool_response>") && strings.Contains(last, "DENIED"):
		text = "OK, I left your board as it is."
	case strings.Contains(last, "<tool_response>") && strings.Contains(last, `"id":1`):
		text = "Done: Gym is on your board."
	case strings.Contains(all, "create_task"):
		text = "Adding it. <tool_call>\n{\"name\": \"create_task\", \"arguments\": {\"title\":\"Gym\"}}\n</tool_call>"
	}
	return upstreamtest.Round{Events: upstreamtest.Text("c", "small-model", text)}
}
