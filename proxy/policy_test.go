package proxy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost/store"
)

// The email address lookup answers with; no client, model or store may
// see it once mask-emails redacts lookup's results.
const policyEmail = "ann.lee@corp.example.com"

// policyConfig has a named client key, three webhook tools without
// approval, and the rules docs/policies.md shows: redact emails, deny a
// force push, hold a refund over 100.
const policyConfig = `auth:
  keys:
    - {name: app, key: ` + appKey + `}
  admin_keys: ["` + keysAdmin + `"]
loop:
  keepalive: 0s
` + textUpstream + `tools:
  - name: run_shell
    parameters: {type: object, properties: {command: {type: string}}, required: [command]}
    webhook: {url: "${WEBHOOK}/run_shell"}
  - name: lookup
    parameters: {type: object, properties: {who: {type: string}}}
    webhook: {url: "${WEBHOOK}/lookup"}
  - name: refund
    parameters: {type: object, properties: {order: {type: object, properties: {amount: {type: number}}}}}
    webhook: {url: "${WEBHOOK}/refund"}
policies:
  - name: mask-emails
    tools: [lookup]
    redact_result: '[\w.+-]+@[\w-]+\.[\w.]+'
  - name: no-force-push
    tools: [run_shell]
    when: 'args.command.matches("push\\s+(-f|--force)")'
    action: deny
    message: force pushes are not allowed here
  - name: big-refunds
    tools: [refund]
    keys: [app]
    when: 'args.order.amount > 100'
    action: approve
`

// policyRounds: one round calling all three tools, then an answer.
func policyRounds() []upstreamtest.Round {
	return []upstreamtest.Round{
		textRound("p1", "On it. ",
			call("run_shell", `{"command":"git push --force origin main"}`),
			call("lookup", `{"who":"ann"}`),
			call("refund", `{"order":{"amount":150}}`)),
		textRound("p2", "Done."),
	}
}

// approvePending waits for the one pending action of the turn and
// approves it with the turn's key.
func approvePending(t *testing.T, e *turnEnv, db store.Store) store.Action {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if acts := pendingActions(t, e, db); len(acts) > 0 {
			if len(acts) != 1 {
				t.Fatalf("pending actions %+v", acts)
			}
			resp := e.do(t, http.MethodPost, "/v1/actions/"+acts[0].ID+"/approve", "", "Authorization: Bearer "+appKey)
			if body := readAll(t, resp); resp.StatusCode != http.StatusOK {
				t.Fatalf("approve: %d %s", resp.StatusCode, body)
			}
			return acts[0]
		}
		if time.Now().After(deadline) {
			t.Fatal("no call was held for approval")
		}
		waitABit()
	}
}

// checkPolicyOutcome: the force push never ran and the model read why;
// lookup ran and nobody saw the email; the refund ran once approved; the
// audit log names each deciding rule.
func checkPolicyOutcome(t *testing.T, e *turnEnv, db store.Store, client string, source string) {
	t.Helper()
	var ran []string
	for _, h := range e.hooks.received() {
		ran = append(ran, h.Tool)
	}
	if strings.Join(ran, ",") != "lookup,refund" {
		t.Errorf("webhooks ran %v, want lookup and refund (the force push denied)", ran)
	}
	reqs := e.up.Requests()
	if len(reqs) != 2 {
		t.Fatalf("upstream got %d requests, want 2", len(reqs))
	}
	fed := string(reqs[1].Body)
	if !strings.Contains(fed, "POLICY_DENIED") || !strings.Contains(fed, "force pushes are not allowed here") {
		t.Errorf("the model did not read the deny: %s", fed)
	}
	if !strings.Contains(fed, "[redacted]") {
		t.Errorf("the model did not read the redacted result: %s", fed)
	}
	for where, text := range map[string]string{"model": fed, "client": client} {
		if strings.Contains(text, policyEmail) {
			t.Errorf("the %s saw %s", where, policyEmail)
		}
	}
	recs, _, err := db.Calls(context.Background(), store.CallQuery{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]store.CallRecord{}
	for _, r := range recs {
		got[r.Tool] = r
		if strings.Contains(r.ResultExcerpt, policyEmail) {
			t.Errorf("audit record of %s holds the email", r.Tool)
		}
		if r.Source != source {
			t.Errorf("audit record of %s has source %q, want %q", r.Tool, r.Source, source)
		}
	}
	if r := got["run_shell"]; r.Policy != "no-force-push" || r.ErrorCode != "POLICY_DENIED" || r.Executed {
		t.Errorf("run_shell record = %+v", r)
	}
	if r := got["refund"]; r.Policy != "big-refunds" || r.Approval == nil || r.Approval.Decision != store.ActionApproved || r.Status != "ok" {
		t.Errorf("refund record = %+v", r)
	}
	if r := got["lookup"]; !strings.Contains(r.ResultExcerpt, "[redacted]") {
		t.Errorf("lookup record = %+v", r)
	}
}

// TestPolicyRoutes runs the same turn through each client protocol: a
// force push denied, an email redacted, a refund held for approval though
// the request pre-approves every tool — one place in the call path holds
// them all.
func TestPolicyRoutes(t *testing.T) {
	for _, tc := range []struct {
		route, path, body, source string
	}{
		{"chat", "/v1/chat/completions", toolRequest, "chat"},
		{"responses", "/v1/responses", `{"model":"m","stream":true,"input":"go"}`, "responses"},
		{"messages", "/v1/messages", `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"go"}]}`, "messages"},
	} {
		t.Run(tc.route, func(t *testing.T) {
			e, db := newKeysEnv(t, policyConfig, nil, policyRounds())
			e.hooks.answer("lookup", hookAnswer{body: `{"who":"ann","email":"` + policyEmail + `"}`})
			type done struct{ body string }
			out := make(chan done, 1)
			go func() {
				resp := e.do(t, http.MethodPost, tc.path, tc.body, "Authorization: Bearer "+appKey, "X-Toolstream-Approve: *")
				out <- done{readAll(t, resp)}
			}()
			approvePending(t, e, db)
			var body string
			select {
			case d := <-out:
				body = d.body
			case <-time.After(20 * time.Second):
				t.Fatal("the turn did not finish")
			}
			if !strings.Contains(body, "Done.") {
				t.Errorf("the turn did not finish: %s", body)
			}
			checkPolicyOutcome(t, e, db, body, tc.source)
		})
	}
}

// TestPolicyMCP: /mcp's tools/call is held to the same rules.
func TestPolicyMCP(t *testing.T) {
	e, db := newKeysEnv(t, policyConfig, nil, nil)
	e.hooks.answer("lookup", hookAnswer{body: `{"who":"ann","email":"` + policyEmail + `"}`})
	cs := mcpConnect(t, e, appKey, "", nil)
	var client strings.Builder
	callTool := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		client.Write(b)
		return res
	}
	if res := callTool("run_shell", map[string]any{"command": "git push -f"}); !res.IsError || !strings.Contains(resultText(res), "POLICY_DENIED: force pushes are not allowed here") {
		t.Errorf("force push: %+v %s", res, resultText(res))
	}
	if res := callTool("lookup", map[string]any{"who": "ann"}); res.IsError || !strings.Contains(resultText(res), "[redacted]") {
		t.Errorf("lookup: %s", resultText(res))
	}
	out := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "refund", Arguments: map[string]any{"order": map[string]any{"amount": 150}}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		out <- res
	}()
	approvePending(t, e, db)
	select {
	case res := <-out:
		if res.IsError {
			t.Errorf("refund: %s", resultText(res))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the refund did not finish")
	}
	if strings.Contains(client.String(), policyEmail) {
		t.Errorf("the MCP client saw the email: %s", client.String())
	}
	recs, _, err := db.Calls(context.Background(), store.CallQuery{})
	if err != nil {
		t.Fatal(err)
	}
	policies := map[string]string{}
	for _, r := range recs {
		policies[r.Tool] = r.Policy
		if strings.Contains(r.ResultExcerpt, policyEmail) {
			t.Errorf("audit record of %s holds the email", r.Tool)
		}
	}
	if policies["run_shell"] != "no-force-push" || policies["refund"] != "big-refunds" {
		t.Errorf("audit policies = %v", policies)
	}
}
