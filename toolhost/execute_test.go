package toolhost_test

import (
	"context"
	"errors"
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

// recordedHost is a host over one counting webhook whose records go to an
// in-memory store.
func recordedHost(t *testing.T, idempotent bool) (*toolhost.Host, store.Store, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"temp":21}`))
	})
	dbBackend, err := badger.Open(config.Storage{InMemory: true}, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := store.Checked(dbBackend)
	t.Cleanup(func() { db.Close() })
	tool := weatherTool(srv.URL)
	tool.Idempotent = idempotent
	tool.Redact = []string{"city"}
	return newHost(t, []config.Tool{tool}, toolhost.Options{Records: db, Instance: "inst_now"}), db, &hits
}

// TestRetryOfUnknownOutcome: a retried turn whose earlier attempt started
// a call nobody saw finish (a crash) does not run it again — the model
// reads OUTCOME_UNKNOWN — unless the tool is idempotent.
func TestRetryOfUnknownOutcome(t *testing.T) {
	for _, idempotent := range []bool{false, true} {
		h, db, hits := recordedHost(t, idempotent)
		origin := &toolhost.Origin{KeyID: "key_1", Attempt: toolhost.AttemptFromKey("key_1", "idem-1"), Keyed: true, Retry: true}
		// What the crashed first attempt left: a started call and its
		// replay entry, filed under the same attempt.
		ref := &store.AttemptRef{Attempt: origin.Attempt, TTL: time.Hour, Replay: store.Replay{
			AuditID: "tcr_earlier", TurnID: "turn_0", Tool: "get_weather",
			ArgsHash: argsHashOf(t, `{"city":"Paris"}`), Status: store.StatusStarted, StartedAt: time.Now()}}
		if err := db.StartCall(context.Background(), store.CallRecord{ID: "tcr_earlier", Tool: "get_weather", Instance: "inst_dead"}, ref); err != nil {
			t.Fatal(err)
		}

		call := weatherCall(`{"city":"Paris"}`)
		call.Origin = origin
		res := execute(t, h, call)
		switch {
		case !idempotent && (res.Err == nil || res.Err.Code != toolhost.CodeOutcomeUnknown || hits.Load() != 0):
			t.Errorf("non-idempotent retry: %+v, webhook hits %d; want OUTCOME_UNKNOWN and none", res.Err, hits.Load())
		case idempotent && (res.Err != nil || hits.Load() != 1):
			t.Errorf("idempotent retry: %+v, webhook hits %d; want it run once", res.Err, hits.Load())
		}
	}
}

// argsHashOf learns the hash the host files a call's arguments under, by
// running the call once in a throwaway attempt and reading its replay.
func argsHashOf(t *testing.T, args string) string {
	t.Helper()
	h, db, _ := recordedHost(t, false)
	call := weatherCall(args)
	call.Origin = &toolhost.Origin{Attempt: "att_probe"}
	execute(t, h, call)
	reps, err := db.Replays(context.Background(), "att_probe")
	if err != nil || len(reps) != 1 {
		t.Fatalf("probe replays = %+v, %v", reps, err)
	}
	return reps[0].ArgsHash
}

// TestAuditWriteFailureRunsNothing: when the started record cannot be
// written, the tool is not called and the model reads EXECUTION_FAILED.
func TestAuditWriteFailureRunsNothing(t *testing.T) {
	h, db, hits := recordedHost(t, false)
	db.Close()
	res := execute(t, h, weatherCall(`{"city":"Paris"}`))
	if res.Err == nil || res.Err.Code != toolhost.CodeExecutionFailed || hits.Load() != 0 {
		t.Errorf("result %+v, webhook hits %d; want EXECUTION_FAILED and no call", res.Err, hits.Load())
	}
}

// TestAuditRecordsEveryCall: calls that never ran (unknown tool, invalid
// arguments) are on record as well as the one that ran, with redacted
// arguments and the key that asked.
func TestAuditRecordsEveryCall(t *testing.T) {
	h, db, _ := recordedHost(t, false)
	origin := &toolhost.Origin{KeyID: "key_1"}
	for _, c := range []toolhost.Call{
		{ID: "c1", Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)},
		{ID: "c2", Name: "get_weather", Arguments: []byte(`{"days":3}`)},
		{ID: "c3", Name: "no_such_tool", Arguments: []byte(`{}`)},
	} {
		c.Origin = origin
		execute(t, h, c)
	}
	recs, _, err := db.Calls(context.Background(), store.CallQuery{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]store.CallRecord{}
	for _, r := range recs {
		got[r.CallID] = r
	}
	if r := got["c1"]; r.Status != store.StatusOK || !r.Executed || string(r.Arguments) != `{"city":"[redacted]"}` || r.KeyID != "key_1" || r.FinishedAt == nil {
		t.Errorf("ran call record = %+v", r)
	}
	if r := got["c2"]; r.Status != store.StatusError || r.ErrorCode != toolhost.CodeMissingParameter || r.Executed {
		t.Errorf("invalid call record = %+v", r)
	}
	if r := got["c3"]; r.Status != store.StatusError || r.ErrorCode != toolhost.CodeToolNotFound || r.Executed {
		t.Errorf("unknown tool record = %+v", r)
	}
}

// TestRefuseRecords: a call the loop refused itself (a tool this turn may
// not run, an unreadable block) is on record, redacted like any other, and
// nothing runs.
func TestRefuseRecords(t *testing.T) {
	h, db, hits := recordedHost(t, false)
	call := weatherCall(`{"city":"Paris"}`)
	call.Origin = &toolhost.Origin{KeyID: "key_1"}
	h.Refuse(context.Background(), call, toolhost.ErrorResult(call, toolhost.CodeToolNotFound, "not offered in this turn"))
	recs, _, err := db.Calls(context.Background(), store.CallQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("records = %+v, want one", recs)
	}
	r := recs[0]
	if r.Status != store.StatusError || r.ErrorCode != toolhost.CodeToolNotFound || r.Executed || string(r.Arguments) != `{"city":"[redacted]"}` || r.KeyID != "key_1" {
		t.Errorf("record = %+v", r)
	}
	if hits.Load() != 0 {
		t.Errorf("the webhook ran %d times", hits.Load())
	}
}

// TestCancelledSaysWhy: a call cut by a shutdown says so; one whose client
// left says that. Both are on record as cancelled.
func TestCancelledSaysWhy(t *testing.T) {
	h, db, _ := recordedHost(t, false)
	for _, tc := range []struct {
		cause error
		want  string
	}{
		{context.Canceled, "the client went away"},
		{errors.New("proxy: shutting down"), "cancelled: shutting down"},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(tc.cause)
		res, err := h.Execute(ctx, weatherCall(`{"city":"Paris"}`))
		if err == nil || res.Status != toolhost.StatusCancelled || !strings.Contains(res.Err.Message, tc.want) {
			t.Errorf("cause %v: %+v, %v; want cancelled saying %q", tc.cause, res.Err, err, tc.want)
		}
	}
	recs, _, _ := db.Calls(context.Background(), store.CallQuery{Status: store.StatusCancelled})
	if len(recs) != 2 {
		t.Errorf("cancelled records = %d, want 2", len(recs))
	}
}

// TestExecutedOnlyWhenRun: Result.Executed and RunTime say whether the
// executor was called — the tool-latency histogram counts only those
// calls — not for a call refused by validation or cancelled before it
// started.
func TestExecutedOnlyWhenRun(t *testing.T) {
	h, _, hits := recordedHost(t, false)
	if res := execute(t, h, weatherCall(`{"city":"Paris"}`)); !res.Executed || res.RunTime <= 0 || res.RunTime > res.Duration {
		t.Errorf("a call that ran: Executed %v, RunTime %v of %v", res.Executed, res.RunTime, res.Duration)
	}
	if res := execute(t, h, weatherCall(`{"city":7}`)); res.Status != toolhost.StatusError || res.Executed || res.RunTime != 0 {
		t.Errorf("a call refused by validation: %s, Executed %v, RunTime %v", res.Status, res.Executed, res.RunTime)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if res, _ := h.Execute(ctx, weatherCall(`{"city":"Paris"}`)); res.Executed || res.RunTime != 0 {
		t.Errorf("a call cancelled before it started: Executed %v, RunTime %v", res.Executed, res.RunTime)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("webhook requests = %d, want 1", n)
	}
}
