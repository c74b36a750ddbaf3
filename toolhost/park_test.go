package toolhost_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// TestParkAndResume: with Origin.Park a call that needs approval (here
// because the request requires it, the config does not) ends at once as
// awaiting_approval with its action pending and its audit record
// pending; resumed by the action once decided, it runs (approved) or is
// denied with the reason, and its one audit record holds the decision.
func TestParkAndResume(t *testing.T) {
	tests := []struct {
		name     string
		approve  bool
		reason   string
		wantRuns int32
		wantCode string
	}{
		{name: "approved", approve: true, wantRuns: 1},
		{name: "denied", approve: false, reason: "not today", wantRuns: 0, wantCode: toolhost.CodeDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs atomic.Int32
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				runs.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"temp":21}`))
			})
			a, _, db := replicas(t, []config.Tool{weatherTool(srv.URL)})
			call := weatherCall(`{"city":"Oslo"}`)
			call.Origin = &toolhost.Origin{KeyID: "key_1", Require: map[string]bool{"get_weather": true}, Park: true}
			res := execute(t, a, call)
			if res.Status != toolhost.StatusAwaiting || runs.Load() != 0 {
				t.Fatalf("parked: status %q, runs %d; want awaiting_approval, 0", res.Status, runs.Load())
			}
			pending, err := db.Actions(t.Context(), store.ActionQuery{All: true, Status: store.ActionPending})
			if err != nil || len(pending) != 1 {
				t.Fatalf("pending actions %v (%v), want 1", pending, err)
			}
			act := pending[0]
			if rec, ok, _ := db.Call(t.Context(), act.AuditID); !ok || rec.Status != store.StatusPendingApproval {
				t.Fatalf("audit record %+v, want pending_approval", rec)
			}
			if _, err := a.Decide(t.Context(), act.ID, tt.approve, toolhost.Decider{KeyID: "key_1"}, tt.reason); err != nil {
				t.Fatal(err)
			}
			resumed := weatherCall(`{"city":"Oslo"}`)
			resumed.TurnID, resumed.Action = "turn_2", act.ID
			resumed.Origin = &toolhost.Origin{KeyID: "key_1", Park: true}
			res = execute(t, a, resumed)
			if runs.Load() != tt.wantRuns {
				t.Errorf("webhook ran %d times, want %d", runs.Load(), tt.wantRuns)
			}
			if got := code(res); got != tt.wantCode {
				t.Errorf("result code %q, want %q (%+v)", got, tt.wantCode, res.Err)
			}
			if tt.reason != "" && (res.Err == nil || !strings.Contains(res.Err.Message, tt.reason)) {
				t.Errorf("denial %+v does not give the reason %q", res.Err, tt.reason)
			}
			eventuallyRecord(t, db, act.AuditID, func(rec store.CallRecord) bool {
				return rec.Status != store.StatusPendingApproval && rec.Approval != nil && rec.Approval.ActionID == act.ID && rec.TurnID == "turn_1"
			})
		})
	}
}

// TestResumeUnknownActionRunsNothing: a resume naming an action of
// another call is denied, never run.
func TestResumeUnknownActionRunsNothing(t *testing.T) {
	var runs atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { runs.Add(1) })
	a, _, _ := replicas(t, []config.Tool{weatherTool(srv.URL)})
	call := weatherCall(`{"city":"Oslo"}`)
	call.Action = "act_nothing"
	if res := execute(t, a, call); code(res) != toolhost.CodeDenied || runs.Load() != 0 {
		t.Fatalf("result %+v, runs %d; want DENIED, 0", res.Err, runs.Load())
	}
}

func code(r toolhost.Result) string {
	if r.Err == nil {
		return ""
	}
	return r.Err.Code
}

func eventuallyRecord(t *testing.T, db store.Store, id string, ok func(store.CallRecord) bool) {
	t.Helper()
	eventually(t, "the audit record final", func() bool {
		rec, found, _ := db.Call(t.Context(), id)
		return found && ok(rec)
	})
}

// TestResumeOnce: two requests that both resume a parked call run it
// once; the second hears it may have run.
func TestResumeOnce(t *testing.T) {
	var runs atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { runs.Add(1) })
	a, _, db := replicas(t, []config.Tool{weatherTool(srv.URL)})
	call := weatherCall(`{"city":"Oslo"}`)
	call.Origin = &toolhost.Origin{Require: map[string]bool{"get_weather": true}, Park: true}
	execute(t, a, call)
	pending, _ := db.Actions(t.Context(), store.ActionQuery{All: true, Status: store.ActionPending})
	if len(pending) != 1 {
		t.Fatalf("pending actions %v, want 1", pending)
	}
	if _, err := a.Decide(t.Context(), pending[0].ID, true, toolhost.Decider{}, ""); err != nil {
		t.Fatal(err)
	}
	resumed := weatherCall(`{"city":"Oslo"}`)
	resumed.Action = pending[0].ID
	first, second := execute(t, a, resumed), execute(t, a, resumed)
	if code(first) != "" || code(second) != toolhost.CodeOutcomeUnknown || runs.Load() != 1 {
		t.Errorf("first %+v, second %+v, runs %d; want one run and OUTCOME_UNKNOWN", first.Err, second.Err, runs.Load())
	}
}

// TestParkedExpires: a parked call nobody decides expires at the approval
// timeout, as a held one does; resumed then, it is denied, never run.
func TestParkedExpires(t *testing.T) {
	var runs atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { runs.Add(1) })
	dbBackend, err := badger.Open(config.Storage{InMemory: true}, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := store.Checked(dbBackend)
	t.Cleanup(func() { db.Close() })
	h := newHost(t, []config.Tool{weatherTool(srv.URL)}, toolhost.Options{Records: db, ApprovalTimeout: 50 * time.Millisecond, WebhookAllow: []string{"127.0.0.1"}})
	call := weatherCall(`{"city":"Oslo"}`)
	call.Origin = &toolhost.Origin{Require: map[string]bool{"get_weather": true}, Park: true}
	execute(t, h, call)
	var expired []store.Action
	eventually(t, "the parked action expired", func() bool {
		expired, _ = db.Actions(t.Context(), store.ActionQuery{All: true, Status: store.ActionExpired})
		return len(expired) == 1
	})
	resumed := weatherCall(`{"city":"Oslo"}`)
	resumed.Action = expired[0].ID
	if res := execute(t, h, resumed); code(res) != toolhost.CodeDenied || runs.Load() != 0 {
		t.Errorf("resumed after expiry: %+v, runs %d; want DENIED, 0", res.Err, runs.Load())
	}
}
