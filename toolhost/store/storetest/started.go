package storetest

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

// testResolveStarted: a live process resolves its own started calls that
// it no longer runs, and nothing else — not the calls it runs, not
// another instance's, not a finished one, not one waiting for approval.
func testResolveStarted(t *testing.T, open opener) {
	parallel(t, open, "OwnCallsNoLongerRunning", func(t *testing.T, s store.Store) {
		ctx := t.Context()
		const mine, other = "inst_mine", "inst_other"
		ref := &store.AttemptRef{Attempt: "att_1", TTL: time.Hour, Replay: store.Replay{Tool: "t"}}
		start := func(id, instance string, ref *store.AttemptRef) store.CallRecord {
			rec := callRecord(id, "t", now())
			rec.Instance = instance
			must(t, "StartCall "+id, s.StartCall(ctx, rec, ref))
			if ref != nil {
				rec.Attempt = ref.Attempt
			}
			return rec
		}
		left := start("tcr_left", mine, ref)
		runs := start("tcr_runs", mine, nil)
		others := start("tcr_others", other, nil)
		done := finished(start("tcr_done", mine, nil), store.StatusOK)
		must(t, "FinishCall", s.FinishCall(ctx, done, nil))
		waiting := callRecord("tcr_waiting", "t", now())
		waiting.Instance, waiting.Status, waiting.Executed = mine, store.StatusPendingApproval, false
		must(t, "RecordCall", s.RecordCall(ctx, waiting))

		running := func(id string) bool { return id == runs.ID }
		n, err := s.ResolveStarted(ctx, mine, running)
		must(t, "ResolveStarted", err)
		if n != 1 {
			t.Errorf("ResolveStarted = %d, want 1", n)
		}
		left.Status = store.StatusOutcomeUnknown
		wantCall(t, s, left.ID, left)
		wantCall(t, s, runs.ID, runs)
		wantCall(t, s, others.ID, others)
		wantCall(t, s, done.ID, done)
		wantCall(t, s, waiting.ID, waiting)
		if r, err := s.Replays(ctx, "att_1"); err != nil || len(r) != 1 || r[0].Status != store.StatusOutcomeUnknown {
			t.Errorf("replays of the resolved call = %+v, %v; want one, outcome_unknown", r, err)
		}
		if n, err := s.ResolveStarted(ctx, mine, running); err != nil || n != 0 {
			t.Errorf("second ResolveStarted = %d, %v; want nothing left", n, err)
		}
		if _, err := s.ResolveStarted(ctx, "../x", running); err == nil {
			t.Error("ResolveStarted of an invalid instance id: nil error")
		}
	})
}
