package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

const (
	apClientKey = "sk-client-approvals"
	otherKey    = "sk-client-other"
	apAdminKey  = "sk-admin-approvals"
)

// approvalConfig has create_task with the given approval setting, client
// and admin keys.
func approvalConfig(approval string) string {
	return `auth:
  keys: ["` + apClientKey + `", "` + otherKey + `"]
  admin_keys: ["` + apAdminKey + `"]
loop:
  keepalive: 0s
` + textUpstream + `tools:
  - name: create_task
    parameters:
      type: object
      properties:
        title: {type: string}
        secret_note: {type: string}
      required: [title]
    approval: ` + approval + `
    redact: [secret_note]
    webhook: {url: "${WEBHOOK}/create_task"}
`
}

// newStoredEnv is a turn env whose tool host keeps its records in an
// in-memory store, as serve wires it.
func newStoredEnv(t *testing.T, yaml string, rounds []upstreamtest.Round) (*turnEnv, store.Store) {
	t.Helper()
	p := newParts(t, yaml, rounds)
	w := wired(t, openStore(t, config.Storage{InMemory: true}, badger.Options{}))
	host := p.host(t, w.Host(toolhost.Options{}))
	return p.serve(t, w.Proxy(proxy.Options{}, host, nil)), w.Store
}

// streamReader reads a turn's SSE stream event by event.
type streamReader struct {
	resp *http.Response
	sc   *bufio.Scanner
	seen []string
}

func openStream(t *testing.T, e *turnEnv, ctx context.Context, body string, headers ...string) *streamReader {
	t.Helper()
	return openStreamAt(t, e, ctx, "/v1/chat/completions", body, headers...)
}

// openStreamAt is openStream on another route.
func openStreamAt(t *testing.T, e *turnEnv, ctx context.Context, path, body string, headers ...string) *streamReader {
	t.Helper()
	resp := e.doCtx(t, ctx, http.MethodPost, path, body, headers...)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, readAll(t, resp))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	t.Cleanup(func() { resp.Body.Close() })
	return &streamReader{resp: resp, sc: sc}
}

// until reads data payloads until one contains want, and returns it.
func (r *streamReader) until(t *testing.T, want string) string {
	t.Helper()
	for r.sc.Scan() {
		d, ok := strings.CutPrefix(r.sc.Text(), "data: ")
		if !ok {
			continue
		}
		r.seen = append(r.seen, d)
		if strings.Contains(d, want) {
			return d
		}
	}
	t.Fatalf("stream ended without %q; read:\n%s", want, strings.Join(r.seen, "\n"))
	return ""
}

// event decodes the toolstream extension of a chunk.
func event(t *testing.T, chunk string) map[string]any {
	t.Helper()
	var c struct {
		Toolstream map[string]any `json:"toolstream"`
	}
	if err := json.Unmarshal([]byte(chunk), &c); err != nil || c.Toolstream == nil {
		t.Fatalf("not an event chunk: %s", chunk)
	}
	return c.Toolstream
}

func (e *turnEnv) jsonDo(t *testing.T, method, path, body, key string) (int, map[string]any) {
	t.Helper()
	resp := e.do(t, method, path, body, "Authorization: Bearer "+key)
	raw := readAll(t, resp)
	var out map[string]any
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("%s %s: %d %q", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

func twoRounds() []upstreamtest.Round {
	return []upstreamtest.Round{
		textRound("c1", "Adding it. ", call("create_task", `{"title":"Gym","secret_note":"s3cr3t-note"}`)),
		textRound("c2", "Done."),
	}
}

// TestApprovalHoldsCallUntilApproved: the call waits — the webhook hears
// nothing — until the key that started the turn approves it through the
// actions API; a second decision is a 409; the audit log says who decided
// and keeps the redacted field masked.
func TestApprovalHoldsCallUntilApproved(t *testing.T) {
	e, _ := newStoredEnv(t, approvalConfig("always"), twoRounds())
	st := openStream(t, e, context.Background(), toolRequest, "Authorization: Bearer "+apClientKey)
	ev := event(t, st.until(t, `"approval.requested"`))
	id, _ := ev["action_id"].(string)
	if id == "" || ev["expires_at"] == nil || ev["name"] != "create_task" {
		t.Fatalf("approval.requested = %v", ev)
	}
	if got := e.hooks.received(); len(got) != 0 {
		t.Fatalf("webhook called before approval: %v", got)
	}

	code, list := e.jsonDo(t, "GET", "/v1/actions?status=pending", "", apClientKey)
	data, _ := list["data"].([]any)
	if code != 200 || len(data) != 1 || data[0].(map[string]any)["id"] != id {
		t.Fatalf("pending actions: %d %v", code, list)
	}
	if args := data[0].(map[string]any)["arguments"].(map[string]any); args["secret_note"] != "[redacted]" {
		t.Errorf("action arguments not redacted: %v", args)
	}
	if code, other := e.jsonDo(t, "GET", "/v1/actions?status=pending", "", otherKey); code != 200 || len(other["data"].([]any)) != 0 {
		t.Errorf("another key sees the action: %d %v", code, other)
	}
	if code, _ := e.jsonDo(t, "POST", "/v1/actions/"+id+"/approve", "", otherKey); code != 404 {
		t.Errorf("another key approving: %d, want 404", code)
	}
	if code, a := e.jsonDo(t, "POST", "/v1/actions/"+id+"/approve", "", apClientKey); code != 200 || a["status"] != "approved" {
		t.Fatalf("approve: %d %v", code, a)
	}
	if code, a := e.jsonDo(t, "POST", "/v1/actions/"+id+"/deny", "", apClientKey); code != 409 {
		t.Errorf("second decision: %d %v, want 409", code, a)
	}

	res := event(t, st.until(t, `"approval.resolved"`))
	if res["decision"] != "approved" {
		t.Errorf("approval.resolved = %v", res)
	}
	fin := event(t, st.until(t, `"tool.finished"`))
	if fin["status"] != "ok" {
		t.Errorf("tool.finished = %v", fin)
	}
	st.until(t, "[DONE]")
	if got := e.hooks.received(); len(got) != 1 {
		t.Fatalf("webhook calls = %d, want 1", len(got))
	}

	code, calls := e.jsonDo(t, "GET", "/admin/calls", "", apAdminKey)
	recs, _ := calls["data"].([]any)
	if code != 200 || len(recs) != 1 {
		t.Fatalf("audit log: %d %v", code, calls)
	}
	rec := recs[0].(map[string]any)
	approval, _ := rec["approval"].(map[string]any)
	if rec["status"] != "ok" || approval["decided_by"] != store.KeyID(apClientKey) || approval["action_id"] != id {
		t.Errorf("audit record = %v", rec)
	}
	if strings.Contains(calls["data"].([]any)[0].(map[string]any)["arguments"].(map[string]any)["secret_note"].(string), "s3cr3t") {
		t.Errorf("audit record keeps a redacted field: %v", rec["arguments"])
	}
	if code, _ := e.jsonDo(t, "GET", "/admin/calls", "", apClientKey); code != 403 {
		t.Errorf("client key on /admin/calls: %d, want 403", code)
	}
}

// TestDeniedCallReachesModel: a deny's reason is what the model reads in
// the next round, and the call is on record as denied.
func TestDeniedCallReachesModel(t *testing.T) {
	e, _ := newStoredEnv(t, approvalConfig("always"), twoRounds())
	st := openStream(t, e, context.Background(), toolRequest, "Authorization: Bearer "+apClientKey)
	id := event(t, st.until(t, `"approval.requested"`))["action_id"].(string)
	if code, a := e.jsonDo(t, "POST", "/v1/actions/"+id+"/deny", `{"reason":"not on a Sunday"}`, apClientKey); code != 200 || a["status"] != "denied" {
		t.Fatalf("deny: %d %v", code, a)
	}
	fin := event(t, st.until(t, `"tool.finished"`))
	if fin["status"] != "denied" {
		t.Errorf("tool.finished = %v", fin)
	}
	st.until(t, "[DONE]")
	if got := e.hooks.received(); len(got) != 0 {
		t.Fatalf("denied call reached the webhook: %v", got)
	}
	reqs := e.up.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "not on a Sunday") || !strings.Contains(string(reqs[1].Body), "DENIED") {
		t.Fatalf("round 2 request lacks the deny reason: %d requests", len(reqs))
	}
	_, calls := e.jsonDo(t, "GET", "/admin/calls?status=denied", "", apAdminKey)
	if recs := calls["data"].([]any); len(recs) != 1 || recs[0].(map[string]any)["error_code"] != "DENIED" {
		t.Errorf("audit log: %v", calls)
	}
}

// TestPreApprovedTurnDoesNotPause: X-Toolstream-Approve lets an always
// tool run at once; an admin tool cannot be pre-approved.
func TestPreApprovedTurnDoesNotPause(t *testing.T) {
	e, _ := newStoredEnv(t, approvalConfig("always"), twoRounds())
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest, "Authorization: Bearer "+apClientKey, "X-Toolstream-Approve: create_task")
	body := readAll(t, resp)
	if strings.Contains(body, "approval.requested") || !strings.Contains(body, `"status":"ok"`) {
		t.Fatalf("pre-approved turn:\n%s", body)
	}
	if got := e.hooks.received(); len(got) != 1 {
		t.Fatalf("webhook calls = %d, want 1", len(got))
	}

	admin, _ := newStoredEnv(t, approvalConfig("admin"), twoRounds())
	resp = admin.do(t, http.MethodPost, "/v1/chat/completions", toolRequest, "Authorization: Bearer "+apClientKey, "X-Toolstream-Approve: create_task")
	if body := readAll(t, resp); resp.StatusCode != 400 || !strings.Contains(body, "toolstream.approve") {
		t.Errorf("pre-approving an admin tool: %d %s", resp.StatusCode, body)
	}
}

// TestAdminApproval: only an admin key decides an approval: admin call.
func TestAdminApproval(t *testing.T) {
	e, _ := newStoredEnv(t, approvalConfig("admin"), twoRounds())
	st := openStream(t, e, context.Background(), toolRequest, "Authorization: Bearer "+apClientKey)
	id := event(t, st.until(t, `"approval.requested"`))["action_id"].(string)
	if code, _ := e.jsonDo(t, "POST", "/v1/actions/"+id+"/approve", "", apClientKey); code != 403 {
		t.Errorf("client key approving an admin action: %d, want 403", code)
	}
	if code, a := e.jsonDo(t, "POST", "/v1/actions/"+id+"/approve", "", apAdminKey); code != 200 || a["decided_by"] != store.KeyID(apAdminKey) {
		t.Fatalf("admin approve: %d %v", code, a)
	}
	st.until(t, "[DONE]")
	if got := e.hooks.received(); len(got) != 1 {
		t.Fatalf("webhook calls = %d, want 1", len(got))
	}
}

// TestClientLeavesDuringApproval: the action expires and the call is on
// record as cancelled; the webhook never hears of it.
func TestClientLeavesDuringApproval(t *testing.T) {
	e, db := newStoredEnv(t, approvalConfig("always"), twoRounds())
	ctx, cancel := context.WithCancel(context.Background())
	st := openStream(t, e, ctx, toolRequest, "Authorization: Bearer "+apClientKey)
	id := event(t, st.until(t, `"approval.requested"`))["action_id"].(string)
	cancel()
	// The handler records on its way out; wait for the action to settle.
	for range 200 {
		if a, ok, _ := db.Action(context.Background(), id); ok && a.Status != store.ActionPending {
			if a.Status != store.ActionExpired {
				t.Errorf("action status = %s, want expired", a.Status)
			}
			break
		}
		waitABit()
	}
	var recs []store.CallRecord
	for range 200 {
		recs, _, _ = db.Calls(context.Background(), store.CallQuery{})
		if len(recs) == 1 {
			break
		}
		waitABit()
	}
	if len(recs) != 1 || recs[0].Status != store.StatusCancelled || recs[0].Executed {
		t.Errorf("audit records = %+v", recs)
	}
	if got := e.hooks.received(); len(got) != 0 {
		t.Errorf("webhook called: %v", got)
	}
}

// TestRetrySameIdempotencyKey: an SDK retrying a whole turn with the same
// Idempotency-Key does not call a non-idempotent webhook again; the model
// gets the recorded result.
func TestRetrySameIdempotencyKey(t *testing.T) {
	rounds := []upstreamtest.Round{
		textRound("c1", "Adding it. ", call("create_task", `{"title":"Gym"}`)),
		textRound("c2", "Done."),
		textRound("c3", "Adding it. ", call("create_task", `{"title":"Gym"}`)),
		textRound("c4", "Done again."),
	}
	e, _ := newStoredEnv(t, approvalConfig("never"), rounds)
	for i := range 2 {
		resp := e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest, "Authorization: Bearer "+apClientKey, "Idempotency-Key: stainless-node-retry-1")
		if body := readAll(t, resp); !strings.Contains(body, "[DONE]") {
			t.Fatalf("attempt %d:\n%s", i+1, body)
		}
	}
	if got := e.hooks.received(); len(got) != 1 {
		t.Fatalf("webhook calls = %d, want 1 (the retry must not run the call again)", len(got))
	}
	reqs := e.up.Requests()
	if len(reqs) != 4 || !strings.Contains(string(reqs[3].Body), `\"ok\":true`) {
		t.Fatalf("the retry's round 2 does not carry the recorded result (%d requests)", len(reqs))
	}
	// Another key, or no Idempotency-Key, is another turn.
	e.up.Add(rounds[:2]...)
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest, "Authorization: Bearer "+apClientKey)
	readAll(t, resp)
	if got := e.hooks.received(); len(got) != 2 {
		t.Fatalf("webhook calls = %d, want 2", len(got))
	}
}

// waitABit paces a poll for a condition the handler settles after the
// client left; the callers bound the number of polls.
func waitABit() { time.Sleep(10 * time.Millisecond) }

// TestShutdownDuringApproval: an approval still waiting when the shutdown
// grace is over ends as decided by "shutdown", on the action, in the
// call's audit record and in the call's log line — not "client-gone": the
// client did not leave, the proxy stopped.
func TestShutdownDuringApproval(t *testing.T) {
	p := newParts(t, approvalConfig("always"), twoRounds())
	w := wired(t, openStore(t, config.Storage{InMemory: true}, badger.Options{}))
	db := w.Store
	logs := &logRecords{}
	host := p.host(t, w.Host(toolhost.Options{Logger: slog.New(logs)}))
	e := p.serve(t, w.Proxy(proxy.Options{}, host, nil))
	st := openStream(t, e, context.Background(), toolRequest, "Authorization: Bearer "+apClientKey)
	id := event(t, st.until(t, `"approval.requested"`))["action_id"].(string)

	cut(t, e.proxy) // returns once the handler did, records written
	st.until(t, `"code":"shutting_down"`)
	if a, _, _ := db.Action(context.Background(), id); a.Status != store.ActionExpired || a.DecidedBy != "shutdown" {
		t.Errorf("action %s decided by %q, want expired by shutdown", a.Status, a.DecidedBy)
	}
	recs, _, _ := db.Calls(context.Background(), store.CallQuery{})
	if len(recs) != 1 || recs[0].Status != store.StatusCancelled || recs[0].Approval == nil || recs[0].Approval.DecidedBy != "shutdown" {
		t.Errorf("audit records = %+v, want one cancelled call whose approval was ended by shutdown", recs)
	}
	lines := logs.find("tool call")
	if len(lines) != 1 || lines[0]["decided_by"] != "shutdown" || lines[0]["status"] != toolhost.StatusCancelled {
		t.Errorf("tool call log lines %v, want one cancelled, decided_by=shutdown", lines)
	}
}
