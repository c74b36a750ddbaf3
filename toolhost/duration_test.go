package toolhost_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// TestDurationExcludesApprovalWait: a call that waited for a person's
// decision reports, in its result and its audit record, how long it ran
// from the decision on, not the wait; the wait is on record as the
// decision's time after the call's start.
func TestDurationExcludesApprovalWait(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"temp":21}`))
	})
	tool := weatherTool(srv.URL)
	tool.Approval = toolhost.ApprovalAlways
	h, _, db := replicas(t, []config.Tool{tool})

	const wait = 1500 * time.Millisecond
	done := make(chan toolhost.Result, 1)
	go func() {
		res, _ := h.Execute(t.Context(), weatherCall(`{"city":"Oslo"}`))
		done <- res
	}()
	var pending []store.Action
	eventually(t, "the action pending", func() bool {
		pending, _ = db.Actions(t.Context(), store.ActionQuery{All: true, Status: store.ActionPending})
		return len(pending) == 1
	})
	time.Sleep(wait) // a person reading the call
	if _, err := h.Decide(t.Context(), pending[0].ID, true, toolhost.Decider{Admin: true}, ""); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.Status != toolhost.StatusOK || res.Duration >= wait || res.RunTime > res.Duration {
		t.Errorf("result %s after %v (run %v); want ok, its duration without the %v wait", res.Status, res.Duration, res.RunTime, wait)
	}
	recs, _, err := db.Calls(t.Context(), store.CallQuery{})
	if err != nil || len(recs) != 1 || recs[0].Approval == nil {
		t.Fatalf("audit: %v %+v", err, recs)
	}
	rec := recs[0]
	if waited := rec.Approval.At.Sub(rec.StartedAt); rec.DurationMS >= wait.Milliseconds() || waited < wait {
		t.Errorf("record: duration_ms %d, decided %v after it started; want the wait (%v) out of the duration, in the decision's time", rec.DurationMS, waited, wait)
	}
}
