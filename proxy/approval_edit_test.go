package proxy_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// editConfig has create_task with a typed, bounded priority beside
// approvalConfig's fields, so that an edit has something to coerce and
// something to break.
func editConfig(approval string) string {
	return strings.Replace(approvalConfig(approval),
		"        secret_note: {type: string}\n",
		"        secret_note: {type: string}\n        priority: {type: integer, maximum: 5}\n", 1)
}

func editRounds() []upstreamtest.Round {
	return []upstreamtest.Round{
		textRound("c1", "Adding it. ", call("create_task", `{"title":"Gym","priority":1,"secret_note":"s3cr3t-note"}`)),
		textRound("c2", "Done."),
	}
}

// TestApproveWithEdits: an approval with arguments runs the call with
// them (coerced by the schema, the redacted field keeping the model's
// value), the client's events show what ran, the model hears that a person
// changed the arguments and to what, and the audit keeps the model's as
// proposed_arguments; invalid edits are 400s naming the field and leave
// the action pending.
func TestApproveWithEdits(t *testing.T) {
	e, _ := newStoredEnv(t, editConfig("always"), editRounds())
	st := openStream(t, e, context.Background(), toolRequest, "Authorization: Bearer "+apClientKey)
	id := event(t, st.until(t, `"approval.requested"`))["action_id"].(string)
	approve := "/v1/actions/" + id + "/approve"

	for _, tc := range []struct {
		name, body, param string
	}{
		{"over the maximum", `{"arguments":{"title":"Gym","priority":9}}`, "arguments.priority"},
		{"wrong type", `{"arguments":{"title":"Gym","priority":"high"}}`, "arguments.priority"},
		{"required field gone", `{"arguments":{"priority":2}}`, "arguments.title"},
		{"not an object", `{"arguments":[1,2]}`, "arguments"},
		{"a redacted field changed", `{"arguments":{"title":"Gym","secret_note":"mine"}}`, "arguments.secret_note"},
	} {
		code, out := e.jsonDo(t, "POST", approve, tc.body, apClientKey)
		errObj, _ := out["error"].(map[string]any)
		if code != 400 || errObj["param"] != tc.param || errObj["type"] != "invalid_request_error" {
			t.Errorf("%s: %d %v, want 400 naming %s", tc.name, code, out, tc.param)
		}
	}
	if code, _ := e.jsonDo(t, "POST", "/v1/actions/"+id+"/deny", `{"arguments":{"title":"x"}}`, apClientKey); code != 400 {
		t.Errorf("deny with arguments: %d, want 400", code)
	}
	if code, a := e.jsonDo(t, "GET", "/v1/actions/"+id, "", apClientKey); code != 200 || a["status"] != "pending" {
		t.Fatalf("after refused edits the action is %d %v, want pending", code, a)
	}
	if got := e.hooks.received(); len(got) != 0 {
		t.Fatalf("webhook called before approval: %v", got)
	}

	// The edit as a JSON string, as a model sends arguments; "3" is
	// coerced to 3; the redacted field comes back masked, as it was shown.
	code, a := e.jsonDo(t, "POST", approve, `{"arguments":"{\"title\":\"Gym at 7\",\"priority\":\"3\",\"secret_note\":\"[redacted]\"}"}`, apClientKey)
	if code != 200 || a["status"] != "approved" {
		t.Fatalf("edited approve: %d %v", code, a)
	}
	if edited, _ := a["edited_arguments"].(map[string]any); edited["priority"] != 3.0 || edited["secret_note"] != "[redacted]" {
		t.Errorf("action's edited_arguments = %v", a["edited_arguments"])
	}

	res := event(t, st.until(t, `"approval.resolved"`))
	if args, _ := res["arguments"].(map[string]any); res["decision"] != "approved" || args["title"] != "Gym at 7" {
		t.Errorf("approval.resolved = %v, want the edit", res)
	}
	fin := event(t, st.until(t, `"tool.finished"`))
	if args, _ := fin["arguments"].(map[string]any); fin["status"] != "ok" || args["title"] != "Gym at 7" {
		t.Errorf("tool.finished = %v, want the arguments that ran", fin)
	}
	st.until(t, "[DONE]")

	hooks := e.hooks.received()
	if len(hooks) != 1 {
		t.Fatalf("webhook calls = %d, want 1", len(hooks))
	}
	ran, _ := hooks[0].Body["arguments"].(map[string]any)
	if ran["title"] != "Gym at 7" || ran["priority"] != 3.0 || ran["secret_note"] != "s3cr3t-note" {
		t.Errorf("webhook got %v, want the edit with the model's secret_note", ran)
	}

	reqs := e.up.Requests()
	if len(reqs) != 2 {
		t.Fatalf("upstream requests = %d, want 2", len(reqs))
	}
	round2 := string(reqs[1].Body)
	if !strings.Contains(round2, "changed its arguments") || !strings.Contains(round2, `Gym at 7`) {
		t.Errorf("round 2 does not tell the model of the edit:\n%s", round2)
	}
	if strings.Contains(round2, `\"title\":\"Gym at 7\",\"priority\":3,\"secret_note\":\"s3cr3t`) {
		t.Errorf("the note shows a redacted value:\n%s", round2)
	}

	_, calls := e.jsonDo(t, "GET", "/admin/calls", "", apAdminKey)
	recs, _ := calls["data"].([]any)
	if len(recs) != 1 {
		t.Fatalf("audit log: %v", calls)
	}
	rec := recs[0].(map[string]any)
	args, _ := rec["arguments"].(map[string]any)
	proposed, _ := rec["proposed_arguments"].(map[string]any)
	if args["title"] != "Gym at 7" || proposed["title"] != "Gym" || proposed["priority"] != 1.0 {
		t.Errorf("audit record arguments %v, proposed %v", args, proposed)
	}
	if args["secret_note"] != "[redacted]" || proposed["secret_note"] != "[redacted]" {
		t.Errorf("audit record unmasked: arguments %v, proposed %v", args, proposed)
	}
	if code, _ := e.jsonDo(t, "POST", approve, `{"arguments":{"title":"again"}}`, apClientKey); code != 409 {
		t.Errorf("a second, edited decision: %d, want 409", code)
	}
}

// TestApproveWithEditsAdmin: an approval: admin call is edited by an admin
// key only; a client key's edit is refused before it is looked at.
func TestApproveWithEditsAdmin(t *testing.T) {
	e, _ := newStoredEnv(t, editConfig("admin"), editRounds())
	st := openStream(t, e, context.Background(), toolRequest, "Authorization: Bearer "+apClientKey)
	id := event(t, st.until(t, `"approval.requested"`))["action_id"].(string)
	approve := "/v1/actions/" + id + "/approve"
	if code, _ := e.jsonDo(t, "POST", approve, `{"arguments":{"title":"Swim"}}`, apClientKey); code != 403 {
		t.Errorf("client key editing an admin action: %d, want 403", code)
	}
	if code, a := e.jsonDo(t, "POST", approve, `{"arguments":{"title":"Swim","priority":2}}`, apAdminKey); code != 200 || a["status"] != "approved" {
		t.Fatalf("admin edit: %d %v", code, a)
	}
	st.until(t, "[DONE]")
	hooks := e.hooks.received()
	if len(hooks) != 1 {
		t.Fatalf("webhook calls = %d, want 1", len(hooks))
	}
	var ran map[string]any
	b, _ := json.Marshal(hooks[0].Body["arguments"])
	_ = json.Unmarshal(b, &ran)
	// secret_note was left out of the edit: the call runs without it.
	if ran["title"] != "Swim" || ran["priority"] != 2.0 || ran["secret_note"] != nil {
		t.Errorf("webhook got %v", ran)
	}
}

// TestApproveWithoutBodyUnchanged: an approval whose arguments are the
// model's runs the model's call, with no note and no proposed_arguments,
// as one without arguments (TestApprovalHoldsCallUntilApproved) does.
func TestApproveWithoutBodyUnchanged(t *testing.T) {
	e, _ := newStoredEnv(t, editConfig("always"), editRounds())
	st := openStream(t, e, context.Background(), toolRequest, "Authorization: Bearer "+apClientKey)
	id := event(t, st.until(t, `"approval.requested"`))["action_id"].(string)
	// The model's own arguments, in another key order and as text the
	// schema coerces, are no edit.
	same := `{"arguments":{"secret_note":"[redacted]","priority":"1","title":"Gym"}}`
	if code, a := e.jsonDo(t, "POST", "/v1/actions/"+id+"/approve", same, apClientKey); code != 200 || a["edited_arguments"] != nil {
		t.Fatalf("approve: %d %v", code, a)
	}
	fin := event(t, st.until(t, `"tool.finished"`))
	if fin["arguments"] != nil {
		t.Errorf("tool.finished of an unedited call carries arguments: %v", fin)
	}
	st.until(t, "[DONE]")
	if strings.Contains(string(e.up.Requests()[1].Body), "changed its arguments") {
		t.Error("the model was told of an edit nobody made")
	}
	_, calls := e.jsonDo(t, "GET", "/admin/calls", "", apAdminKey)
	if rec := calls["data"].([]any)[0].(map[string]any); rec["proposed_arguments"] != nil {
		t.Errorf("audit record has proposed_arguments: %v", rec)
	}
}
