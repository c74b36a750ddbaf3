package proxy_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// wireTool is the mcp tool naming toolstream, as the Agents SDK's
// hostedMcpTool({serverLabel: "toolstream", requireApproval: "always"})
// sends it.
const wireTool = `"tools":[{"type":"mcp","server_label":"toolstream","require_approval":"always"}]`

const wireKey = "Authorization: Bearer " + apClientKey

// rawItems are a response's output items as sent.
func rawItems(t *testing.T, raw string) []json.RawMessage {
	t.Helper()
	var r struct{ Output []json.RawMessage }
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		t.Fatal(err)
	}
	return r.Output
}

// outputTypes are a's output item types, joined by commas.
func outputTypes(a respAnswer) string {
	types := make([]string, 0, len(a.Output))
	for _, it := range a.Output {
		types = append(types, it.Type)
	}
	return strings.Join(types, ",")
}

// parkTurn runs the first request of a wire-form conversation: the model
// calls create_task, which needs approval; the response ends on its
// mcp_approval_request, with mcp_list_tools first, and nothing runs.
func parkTurn(t *testing.T, e *turnEnv) (respAnswer, []json.RawMessage) {
	t.Helper()
	return parkTurnAs(t, e, "mcp_list_tools,message,mcp_approval_request")
}

// parkTurnAs is parkTurn for a model whose first round makes the output
// items want.
func parkTurnAs(t *testing.T, e *turnEnv, want string) (respAnswer, []json.RawMessage) {
	t.Helper()
	status, first, raw := e.post(t, `{"model":"m","input":"Add gym.",`+wireTool+`}`, wireKey)
	if status != 200 || first.Status != "completed" {
		t.Fatalf("first response %d %s", status, raw)
	}
	if got := outputTypes(first); got != want {
		t.Fatalf("first output %s, want %s: mcp_list_tools first and mcp_approval_request last\n%s", got, want, raw)
	}
	if n := len(e.hooks.received()); n != 0 {
		t.Fatalf("the webhook ran %d times before any approval", n)
	}
	last := first.Output[len(first.Output)-1].ID
	resp := e.do(t, http.MethodGet, "/v1/actions?status=pending", "", wireKey)
	if body := readAll(t, resp); !strings.Contains(body, last) {
		t.Fatalf("the approval %s is not pending in /v1/actions: %s", last, body)
	}
	return first, rawItems(t, raw)
}

// TestResponsesWireNative: the same in native mode, where the model's
// call is a tool_calls message and its result a role "tool" message: the
// next request's model — whole input or previous_response_id — reads the
// call and its result once each, roles alternating, and the tool ran
// once.
func TestResponsesWireNative(t *testing.T) {
	cfg := strings.Replace(responsesConfig(true), "tool_mode: text", "tool_mode: native", 1)
	for _, whole := range []bool{true, false} {
		t.Run(fmt.Sprintf("whole input %v", whole), func(t *testing.T) {
			e := newResponsesEnv(t, cfg, []upstreamtest.Round{
				{Events: []string{
					upstreamtest.Chunk("s1", "m", `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"s1_call","type":"function","function":{"name":"create_task","arguments":"{\"title\":\"Gym\"}"}}]}`, ""),
					upstreamtest.Chunk("s1", "m", `{}`, "tool_calls"),
				}},
				textRound("a1", "Done."),
			})
			first, items := parkTurnAs(t, e, "mcp_list_tools,mcp_approval_request")
			answer := `{"type":"mcp_approval_response","approval_request_id":"` + first.Output[1].ID + `","approve":true}`
			body := `{"model":"m","previous_response_id":"` + first.ID + `","input":[` + answer + `],` + wireTool + `}`
			if whole {
				body = `{"model":"m","input":[` + string(items[0]) + `,{"role":"user","content":"Add gym."},` + string(items[1]) + `,` + answer + `],` + wireTool + `}`
			}
			status, second, raw := e.post(t, body, wireKey)
			if status != 200 || outputTypes(second) != "mcp_call,message" {
				t.Fatalf("second response %d %s", status, raw)
			}
			msgs := responsesUpstream(t, e, 2)
			alternate(t, msgs)
			if joined := strings.Join(msgs, "\n"); strings.Count(joined, `"s1_call"`) != 2 || !strings.Contains(joined, `\"ok\":true`) {
				t.Errorf("the model's second round does not hold the call and its result once each:\n%s", joined)
			}
			if n := len(e.hooks.received()); n != 1 {
				t.Errorf("the webhook ran %d times, want once", n)
			}
		})
	}
}

// TestResponsesWireApproval: a call that needs approval ends the
// response, and the next request decides it with an
// mcp_approval_response — after previous_response_id, or in the whole
// input sent back, as the Agents SDK sends it — and the turn goes on in
// that response: approved, the tool runs once and the model reads its
// result; denied, it never runs and the model reads the denial and its
// reason.
func TestResponsesWireApproval(t *testing.T) {
	tests := []struct {
		name     string
		whole    bool
		approve  bool
		wantRuns int
		wantRead string
	}{
		{name: "approved, previous_response_id", approve: true, wantRuns: 1, wantRead: `\"ok\":true`},
		{name: "approved, whole input", whole: true, approve: true, wantRuns: 1, wantRead: `\"ok\":true`},
		{name: "denied, previous_response_id", approve: false, wantRuns: 0, wantRead: `DENIED`},
		{name: "denied, whole input", whole: true, approve: false, wantRuns: 0, wantRead: `not today`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newResponsesEnv(t, responsesConfig(true), []upstreamtest.Round{
				textRound("c1", "Adding it. ", call("create_task", `{"title":"Gym"}`)),
				textRound("c2", "Done."),
				textRound("c3", "Still done."),
			})
			first, items := parkTurn(t, e)
			answer := `{"type":"mcp_approval_response","approval_request_id":"` + first.Output[2].ID + `","approve":` + map[bool]string{true: "true", false: "false"}[tt.approve] + `,"reason":"not today"}`
			body := `{"model":"m","previous_response_id":"` + first.ID + `","input":[` + answer + `],` + wireTool + `}`
			if tt.whole {
				// list_tools, the message, the request, then the answer.
				body = `{"model":"m","input":[` + string(items[0]) + `,{"role":"user","content":"Add gym."},` + string(items[1]) + `,` + string(items[2]) + `,` + answer + `],` + wireTool + `}`
			}
			status, second, raw := e.post(t, body, wireKey)
			if status != 200 || second.Status != "completed" {
				t.Fatalf("second response %d %s", status, raw)
			}
			if got := outputTypes(second); got != "mcp_call,message" {
				t.Errorf("second output %s, want mcp_call,message\n%s", got, raw)
			}
			if n := len(e.hooks.received()); n != tt.wantRuns {
				t.Errorf("the webhook ran %d times, want %d", n, tt.wantRuns)
			}
			joined := strings.Join(responsesUpstream(t, e, 2), "\n")
			if !strings.Contains(joined, tt.wantRead) || strings.Count(joined, `Adding it.`) != 1 {
				t.Errorf("the model's second round lacks %s, or the call once:\n%s", tt.wantRead, joined)
			}
			// Sent back again, the answered request runs nothing again.
			status, _, raw = e.post(t, `{"model":"m","previous_response_id":"`+second.ID+`","input":[`+answer+`,{"role":"user","content":"thanks"}],`+wireTool+`}`, wireKey)
			if status != 200 || len(e.hooks.received()) != tt.wantRuns {
				t.Errorf("a third request ran the tool again (%d runs): %d %s", len(e.hooks.received()), status, raw)
			}
		})
	}
}

// TestResponsesWireRefusesOthers: an mcp_approval_response naming an
// approval of another key, or of nothing, is refused (unknown_item) and
// nothing runs; the action stays pending.
func TestResponsesWireRefusesOthers(t *testing.T) {
	e := newResponsesEnv(t, responsesConfig(true), []upstreamtest.Round{
		textRound("c1", "Adding it. ", call("create_task", `{"title":"Gym"}`)),
	})
	first, _ := parkTurn(t, e)
	for _, id := range []string{first.Output[2].ID, "act_nothing"} {
		body := `{"model":"m","input":[{"role":"user","content":"Add gym."},{"type":"mcp_approval_response","approval_request_id":"` + id + `","approve":true}],` + wireTool + `}`
		status, _, raw := e.post(t, body, "Authorization: Bearer "+otherKey)
		if status != 400 || !strings.Contains(raw, "unknown_item") {
			t.Errorf("answer for %s by another key = %d %s, want 400 unknown_item", id, status, raw)
		}
	}
	if n := len(e.hooks.received()); n != 0 {
		t.Errorf("the webhook ran %d times", n)
	}
	resp := e.do(t, http.MethodGet, "/v1/actions?status=pending", "", wireKey)
	if body := readAll(t, resp); !strings.Contains(body, first.Output[2].ID) {
		t.Errorf("the approval is no longer pending: %s", body)
	}
}

// TestResponsesWireDecidedByActions: an approval decided through
// /v1/actions is seen decided by the next request, which runs the call;
// a request that continues the same response again runs nothing.
func TestResponsesWireDecidedByActions(t *testing.T) {
	e := newResponsesEnv(t, responsesConfig(true), []upstreamtest.Round{
		textRound("c1", "Adding it. ", call("create_task", `{"title":"Gym"}`)),
		textRound("c2", "Done."),
		textRound("c3", "Done, still."),
	})
	first, _ := parkTurn(t, e)
	resp := e.do(t, http.MethodPost, "/v1/actions/"+first.Output[2].ID+"/approve", "", wireKey)
	if body := readAll(t, resp); resp.StatusCode != 200 {
		t.Fatalf("approve = %d %s", resp.StatusCode, body)
	}
	status, second, raw := e.post(t, `{"model":"m","previous_response_id":"`+first.ID+`","input":"go on",`+wireTool+`}`, wireKey)
	if status != 200 || len(second.Output) == 0 || second.Output[0].Type != "mcp_call" {
		t.Fatalf("second response %d %s", status, raw)
	}
	if n := len(e.hooks.received()); n != 1 {
		t.Errorf("the webhook ran %d times, want once", n)
	}
	// The first response continued again: the call is not run again, and
	// the model reads the result its audit record holds.
	status, _, raw = e.post(t, `{"model":"m","previous_response_id":"`+first.ID+`","input":"and again",`+wireTool+`}`, wireKey)
	if status != 200 || len(e.hooks.received()) != 1 {
		t.Fatalf("continued again = %d %s (runs %d)", status, raw, len(e.hooks.received()))
	}
	if joined := strings.Join(responsesUpstream(t, e, 3), "\n"); !strings.Contains(joined, `\"ok\":true`) {
		t.Errorf("the model does not read the call's recorded result:\n%s", joined)
	}
}

// TestResponsesWireAllowedTools: allowed_tools narrows the turn's server
// tools; a name that is none of them is refused.
func TestResponsesWireAllowedTools(t *testing.T) {
	e := newResponsesEnv(t, responsesConfig(true), []upstreamtest.Round{textRound("c1", "Hi.")})
	status, _, raw := e.post(t, `{"model":"m","input":"hi","tools":[{"type":"mcp","server_label":"toolstream","allowed_tools":["nope"],"require_approval":"never"}]}`, wireKey)
	if status != 400 || !strings.Contains(raw, "nope") {
		t.Errorf("allowed_tools naming no tool = %d %s", status, raw)
	}
	status, a, raw := e.post(t, `{"model":"m","input":"hi","tools":[{"type":"mcp","server_label":"toolstream","allowed_tools":[],"require_approval":"never"}]}`, wireKey)
	if status != 200 || !strings.Contains(raw, `"tools":[]`) {
		t.Errorf("allowed_tools [] = %d %s", status, raw)
	}
	if body := strings.Join(responsesUpstream(t, e, 1), "\n"); strings.Contains(body, "create_task") {
		t.Errorf("the model was offered create_task though allowed_tools is empty: %s (%s)", body, a.ID)
	}
}

// TestResponsesWireDisplay: a display other than events is refused with
// the mcp tool naming toolstream, whose calls are the response's items.
func TestResponsesWireDisplay(t *testing.T) {
	e := newResponsesEnv(t, responsesConfig(true), nil)
	status, _, raw := e.post(t, `{"model":"m","input":"hi","toolstream":{"display":"markdown"},`+wireTool+`}`, wireKey)
	if status != 400 || !strings.Contains(raw, "toolstream.display") {
		t.Errorf("display markdown = %d %s", status, raw)
	}
	status, _, raw = e.post(t, `{"model":"m","input":"hi",`+wireTool+`}`, wireKey, "X-Toolstream-Display: none")
	if status != 400 || !strings.Contains(raw, `"param":"X-Toolstream-Display"`) {
		t.Errorf("X-Toolstream-Display: none = %d %s", status, raw)
	}
}

// TestResponsesWireAdminOnly: a call of an approval: admin tool ends the
// response like any other, but a client key's mcp_approval_response
// cannot decide it (403 admin_key_required, nothing runs); once an admin
// approved it through /v1/actions, the same request goes on and runs it.
func TestResponsesWireAdminOnly(t *testing.T) {
	e := newResponsesEnv(t, approvalConfig("admin"), []upstreamtest.Round{
		textRound("c1", "Adding it. ", call("create_task", `{"title":"Gym"}`)),
		textRound("c2", "Done."),
	})
	first, _ := parkTurn(t, e)
	act := first.Output[2].ID
	body := `{"model":"m","previous_response_id":"` + first.ID + `","input":[{"type":"mcp_approval_response","approval_request_id":"` + act + `","approve":true}],` + wireTool + `}`
	status, _, raw := e.post(t, body, wireKey)
	if status != 403 || !strings.Contains(raw, "admin_key_required") || len(e.hooks.received()) != 0 {
		t.Fatalf("a client key's answer = %d %s (runs %d), want 403 admin_key_required", status, raw, len(e.hooks.received()))
	}
	resp := e.do(t, http.MethodPost, "/v1/actions/"+act+"/approve", "", "Authorization: Bearer "+apAdminKey)
	if b := readAll(t, resp); resp.StatusCode != 200 {
		t.Fatalf("admin approve = %d %s", resp.StatusCode, b)
	}
	status, second, raw := e.post(t, body, wireKey)
	if status != 200 || outputTypes(second) != "mcp_call,message" || len(e.hooks.received()) != 1 {
		t.Errorf("after the admin's approval = %d %s (runs %d)", status, raw, len(e.hooks.received()))
	}
}
