package toolhost_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// policyHost is a host over get_weather, whose webhook answers with an
// email address, held to rules, recording to an in-memory store.
func policyHost(t *testing.T, rules string) (*toolhost.Host, store.Store, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"temp":21,"station":"ops@meteo.example.org"}`))
	})
	cfg, err := config.Parse("t.yaml", []byte(rules), nil)
	if err != nil {
		t.Fatal(err)
	}
	dbBackend, err := badger.Open(config.Storage{InMemory: true}, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := store.Checked(dbBackend)
	t.Cleanup(func() { db.Close() })
	return newHost(t, []config.Tool{weatherTool(srv.URL)}, toolhost.Options{Records: db, Instance: "inst_p", Policies: cfg.Policies}), db, &hits
}

const weatherRules = `policies:
  - name: mask-emails
    redact_result: '[\w.+-]+@[\w-]+\.[\w.]+'
  - name: not-moscow
    tools: [get_weather]
    when: 'args.city == "Moscow"'
    action: deny
    message: no weather for Moscow
  - name: long-range
    tools: [get_*]
    when: 'args.days > 3'
    action: approve
`

// lastRecord is the newest audit record.
func lastRecord(t *testing.T, db store.Store) store.CallRecord {
	t.Helper()
	recs, _, err := db.Calls(context.Background(), store.CallQuery{Limit: 1})
	if err != nil || len(recs) != 1 {
		t.Fatalf("calls = %v, %v", recs, err)
	}
	return recs[0]
}

// TestPolicyDeny: a denied call never reaches the webhook; the model reads
// POLICY_DENIED with the rule's message and the audit record names it.
func TestPolicyDeny(t *testing.T) {
	h, db, hits := policyHost(t, weatherRules)
	res := execute(t, h, weatherCall(`{"city":"Moscow"}`))
	if res.Err == nil || res.Err.Code != toolhost.CodePolicyDenied || res.Err.Message != "no weather for Moscow" || res.Status != toolhost.StatusDenied {
		t.Fatalf("result = %+v %+v, want POLICY_DENIED denied", res, res.Err)
	}
	if hits.Load() != 0 {
		t.Errorf("webhook hit %d times", hits.Load())
	}
	rec := lastRecord(t, db)
	if rec.Policy != "not-moscow" || rec.ErrorCode != toolhost.CodePolicyDenied || rec.Status != toolhost.StatusDenied || rec.Executed {
		t.Errorf("audit record = %+v", rec)
	}
}

// TestPolicyRedact: the result the model, the events and the audit log get
// has the pattern's matches replaced.
func TestPolicyRedact(t *testing.T) {
	h, db, hits := policyHost(t, weatherRules)
	res := execute(t, h, weatherCall(`{"city":"Paris"}`))
	if res.Err != nil || hits.Load() != 1 {
		t.Fatalf("result = %+v, hits %d", res.Err, hits.Load())
	}
	if want := `{"temp":21,"station":"[redacted]"}`; res.Content != want {
		t.Errorf("content = %s, want %s", res.Content, want)
	}
	if rec := lastRecord(t, db); strings.Contains(rec.ResultExcerpt, "meteo") || !strings.Contains(rec.ResultExcerpt, "[redacted]") {
		t.Errorf("audit excerpt = %s", rec.ResultExcerpt)
	}
}

// approver decides every approval it hears of, and counts them.
type approver struct {
	h       *toolhost.Host
	approve bool
	asked   atomic.Int32
}

func (a *approver) ApprovalRequested(call toolhost.Call, act store.Action) {
	a.asked.Add(1)
	if _, err := a.h.Decide(context.Background(), act.ID, a.approve, toolhost.Decider{KeyID: "key_1"}, "too far"); err != nil {
		panic(err)
	}
}
func (a *approver) ApprovalResolved(toolhost.Call, store.Action) {}

// TestPolicyApprove: an approve rule holds a call of a tool without
// approval, a request's approve list ("*") does not lift the hold, and the
// decision stands: approved runs, denied does not.
func TestPolicyApprove(t *testing.T) {
	for _, approve := range []bool{true, false} {
		h, db, hits := policyHost(t, weatherRules)
		a := &approver{h: h, approve: approve}
		call := weatherCall(`{"city":"Paris","days":5}`)
		call.Origin = &toolhost.Origin{KeyID: "key_1", Approve: []string{"*"}}
		call.Progress = a
		res := execute(t, h, call)
		if a.asked.Load() != 1 {
			t.Fatalf("approve %v: asked %d times, want once", approve, a.asked.Load())
		}
		rec := lastRecord(t, db)
		if rec.Policy != "long-range" || rec.Approval == nil {
			t.Errorf("approve %v: audit record = %+v", approve, rec)
		}
		switch {
		case approve && (res.Err != nil || hits.Load() != 1):
			t.Errorf("approved: %+v, hits %d", res.Err, hits.Load())
		case !approve && (res.Err == nil || res.Err.Code != toolhost.CodeDenied || hits.Load() != 0):
			t.Errorf("denied: %+v, hits %d", res.Err, hits.Load())
		}
		// Short range: no rule holds it, and the tool has no approval.
		call.Arguments = []byte(`{"city":"Paris","days":1}`)
		if res := execute(t, h, call); res.Err != nil || a.asked.Load() != 1 {
			t.Errorf("approve %v: short range %+v, asked %d", approve, res.Err, a.asked.Load())
		}
	}
}

// TestSetPolicies: a reload's rules hold the next call; a refused list
// leaves the running rules.
func TestSetPolicies(t *testing.T) {
	h, _, hits := policyHost(t, weatherRules)
	if err := h.SetPolicies([]config.Policy{{Name: "bad", When: "nope(", Action: "deny"}}); err == nil {
		t.Fatal("a bad expression was put in force")
	}
	if res := execute(t, h, weatherCall(`{"city":"Moscow"}`)); res.Err == nil || res.Err.Code != toolhost.CodePolicyDenied {
		t.Errorf("running rules lost: %+v", res.Err)
	}
	if err := h.SetPolicies(nil); err != nil {
		t.Fatal(err)
	}
	if res := execute(t, h, weatherCall(`{"city":"Moscow"}`)); res.Err != nil || hits.Load() != 1 {
		t.Errorf("without rules: %+v, hits %d", res.Err, hits.Load())
	}
}

// BenchmarkExecuteTenRules is BenchmarkExecuteInProcess held to ten rules,
// each with a glob that matches and a when, none of which decides.
func BenchmarkExecuteTenRules(b *testing.B) {
	var rules []config.Policy
	for i := range 10 {
		rules = append(rules, config.Policy{Name: "r" + string(rune('a'+i)), Tools: []string{"get_*"},
			When: `args.city == "Moscow" || args.days > 5`, Action: config.PolicyDeny})
	}
	benchCalls(b, benchHost(b, rules))
}
