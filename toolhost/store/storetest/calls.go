package storetest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

// callRecord is a started call of tool at the given time.
func callRecord(id, tool string, at time.Time) store.CallRecord {
	return store.CallRecord{
		ID:        id,
		TurnID:    "chatcmpl-1",
		CallID:    "call_" + id,
		Round:     1,
		Model:     "qwen3",
		Tool:      tool,
		Arguments: json.RawMessage(`{"city":"Oslo","token":"[redacted]"}`),
		Status:    store.StatusStarted,
		StartedAt: at,
		KeyID:     "key_0123456789ab",
		Executed:  true,
		Instance:  "inst_a",
	}
}

// finished is rec finished with status at its start plus a second.
func finished(rec store.CallRecord, status string) store.CallRecord {
	end := rec.StartedAt.Add(time.Second)
	rec.Status, rec.FinishedAt, rec.DurationMS = status, &end, 1000
	rec.ResultExcerpt = `{"temp_c":4}`
	if status != store.StatusOK {
		rec.ErrorCode, rec.ErrorMessage, rec.ResultExcerpt = "API_ERROR", "the webhook answered 500", ""
	}
	return rec
}

// wantCall checks that id reads as want, or as nothing when want has no id.
func wantCall(t *testing.T, s store.Store, id string, want store.CallRecord) {
	t.Helper()
	got, ok, err := s.Call(t.Context(), id)
	wantRead(t, "Call("+id+")", got, ok, err, want, want.ID != "")
}

func testCalls(t *testing.T, open opener) {
	parallel(t, open, "StartFinish", func(t *testing.T, s store.Store) {
		rec := callRecord("tcr_1", "get_weather", now())
		must(t, "StartCall", s.StartCall(t.Context(), rec, nil))
		wantCall(t, s, "tcr_1", rec)
		done := finished(rec, store.StatusOK)
		done.Approval = &store.Decision{Decision: "pre-approved", At: rec.StartedAt}
		must(t, "FinishCall", s.FinishCall(t.Context(), done, nil))
		wantCall(t, s, "tcr_1", done)
		wantCall(t, s, "tcr_2", store.CallRecord{})
	})
	parallel(t, open, "RequestNamedServer", func(t *testing.T, s store.Store) {
		// A call of a tool a request's own MCP server brought names it.
		rec := callRecord("tcr_1", "lookup_order", now())
		rec.Source, rec.MCPServer = "responses", "shop"
		must(t, "RecordCall", s.RecordCall(t.Context(), finished(rec, store.StatusOK)))
		wantCall(t, s, "tcr_1", finished(rec, store.StatusOK))
	})
	parallel(t, open, "EditedByApprover", func(t *testing.T, s store.Store) {
		// The audit keeps the arguments that ran and the model's.
		rec := callRecord("tcr_1", "refund", now())
		rec.Arguments = json.RawMessage(`{"amount":40,"token":"[redacted]"}`)
		rec.ProposedArguments = json.RawMessage(`{"amount":400,"token":"[redacted]"}`)
		must(t, "StartCall", s.StartCall(t.Context(), rec, nil))
		done := finished(rec, store.StatusOK)
		must(t, "FinishCall", s.FinishCall(t.Context(), done, nil))
		wantCall(t, s, "tcr_1", done)
		page, _, err := s.Calls(t.Context(), store.CallQuery{})
		must(t, "Calls", err)
		if len(page) != 1 || string(page[0].ProposedArguments) != string(rec.ProposedArguments) {
			t.Errorf("Calls = %+v, want the one record with its proposed_arguments", page)
		}
	})
	parallel(t, open, "FinishUnknown", func(t *testing.T, s store.Store) {
		err := s.FinishCall(t.Context(), finished(callRecord("tcr_9", "t", now()), store.StatusOK), nil)
		wantErr(t, "FinishCall of an unknown id", err, store.ErrNotFound)
	})
	parallel(t, open, "Record", func(t *testing.T, s store.Store) {
		rec := callRecord("tcr_1", "nope", now())
		rec.Status, rec.Executed = store.StatusError, false
		rec.ErrorCode, rec.ErrorMessage = "TOOL_NOT_FOUND", "no tool named nope"
		must(t, "RecordCall", s.RecordCall(t.Context(), rec))
		wantCall(t, s, "tcr_1", rec)
	})
	parallel(t, open, "SetsStartedAt", func(t *testing.T, s store.Store) {
		rec := callRecord("tcr_1", "t", time.Time{})
		must(t, "StartCall", s.StartCall(t.Context(), rec, nil))
		got, ok, err := s.Call(t.Context(), "tcr_1")
		if err != nil || !ok || !recent(got.StartedAt) {
			t.Errorf("Call = %v, %v, StartedAt %v; want found, started now", ok, err, got.StartedAt)
		}
	})
	parallel(t, open, "Expiry", func(t *testing.T, s store.Store) {
		old := callRecord("tcr_old", "t", expiredAt())
		must(t, "StartCall", s.StartCall(t.Context(), old, nil))
		wantCall(t, s, "tcr_old", store.CallRecord{})
		// Finishing keeps the expiry counted from the start.
		wantErr(t, "FinishCall of an expired call", s.FinishCall(t.Context(), finished(old, store.StatusOK), nil), store.ErrNotFound)
		must(t, "RecordCall", s.RecordCall(t.Context(), finished(callRecord("tcr_old2", "t", expiredAt()), store.StatusOK)))
		page, _, err := s.Calls(t.Context(), store.CallQuery{})
		if err != nil || len(page) != 0 {
			t.Errorf("Calls = %d records, %v; want none", len(page), err)
		}
	})
}

// seedCalls writes n calls a second apart, the last the newest, cycling
// through the tools, alternating ok and error; it returns them newest
// first, as Calls lists them.
func seedCalls(t *testing.T, s store.Store, n int, tools ...string) []store.CallRecord {
	t.Helper()
	base := now().Add(-time.Duration(n) * time.Second)
	out := make([]store.CallRecord, n)
	for i := range n {
		rec := finished(callRecord(fmt.Sprintf("tcr_%03d", i), tools[i%len(tools)], base.Add(time.Duration(i)*time.Second)), store.StatusOK)
		if i%2 == 1 {
			rec = finished(rec, store.StatusError)
		}
		must(t, "RecordCall", s.RecordCall(t.Context(), rec))
		out[n-1-i] = rec
	}
	return out
}

// allPages reads every page of q and checks that only the last has no
// cursor.
func allPages(t *testing.T, s store.Store, q store.CallQuery) (recs []store.CallRecord, pages int) {
	t.Helper()
	for {
		page, next, err := s.Calls(t.Context(), q)
		must(t, "Calls", err)
		if q.Limit > 0 && len(page) > q.Limit {
			t.Fatalf("page of %d records, limit %d", len(page), q.Limit)
		}
		recs, pages = append(recs, page...), pages+1
		if next == "" {
			return recs, pages
		}
		if len(page) == 0 || pages > 100 {
			t.Fatalf("page %d: %d records and a next cursor", pages, len(page))
		}
		q.Before = next
	}
}

// filter keeps the records of recs that keep says.
func filter(recs []store.CallRecord, keep func(store.CallRecord) bool) []store.CallRecord {
	var out []store.CallRecord
	for _, r := range recs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

func testCallPages(t *testing.T, open opener) {
	parallel(t, open, "Filters", func(t *testing.T, s store.Store) {
		all := seedCalls(t, s, 7, "get_weather", "create_task", "search")
		for _, q := range []store.CallQuery{
			{},
			{Limit: 3},
			{Limit: 1},
			{Limit: 7},
			{Tool: "create_task", Limit: 1},
			{Status: store.StatusError, Limit: 2},
			{Tool: "get_weather", Status: store.StatusOK},
			{Tool: "unknown"},
		} {
			got, pages := allPages(t, s, q)
			want := filter(all, func(r store.CallRecord) bool {
				return (q.Tool == "" || r.Tool == q.Tool) && (q.Status == "" || r.Status == q.Status)
			})
			same(t, fmt.Sprintf("all pages of %+v", q), want, got)
			if q.Limit > 0 && len(want) > 0 {
				if wantPages := (len(want) + q.Limit - 1) / q.Limit; pages != wantPages {
					t.Errorf("%+v: %d pages, want %d", q, pages, wantPages)
				}
			}
		}
	})
	parallel(t, open, "DefaultLimit", func(t *testing.T, s store.Store) {
		seedCalls(t, s, 55, "t")
		page, next, err := s.Calls(t.Context(), store.CallQuery{})
		if err != nil || len(page) != 50 || next == "" {
			t.Errorf("Calls with no limit = %d records, next %q, %v; want 50 and a cursor", len(page), next, err)
		}
	})
	parallel(t, open, "NewerRecordsDoNotShiftPages", func(t *testing.T, s store.Store) {
		all := seedCalls(t, s, 4, "t")
		page, next, err := s.Calls(t.Context(), store.CallQuery{Limit: 2})
		must(t, "Calls", err)
		must(t, "RecordCall", s.RecordCall(t.Context(), finished(callRecord("tcr_new", "t", now()), store.StatusOK)))
		rest, last, err := s.Calls(t.Context(), store.CallQuery{Limit: 2, Before: next})
		must(t, "Calls", err)
		same(t, "two pages around a new record", all, append(page, rest...))
		if last != "" {
			t.Errorf("last page has cursor %q", last)
		}
	})
	parallel(t, open, "BadCursor", func(t *testing.T, s store.Store) {
		seedCalls(t, s, 3, "t")
		// Not base64url, or too short to hold a time and an id.
		for _, c := range []string{"!!!", "a b", "AAAA", "tcr"} {
			_, _, err := s.Calls(t.Context(), store.CallQuery{Before: c})
			wantErr(t, fmt.Sprintf("Calls(Before %q)", c), err, store.ErrBadCursor)
		}
	})
}

func testReplays(t *testing.T, open opener) {
	ref := func(attempt string, r store.Replay) *store.AttemptRef {
		return &store.AttemptRef{Attempt: attempt, TTL: 10 * time.Minute, Replay: r}
	}
	parallel(t, open, "StartThenFinish", func(t *testing.T, s store.Store) {
		ctx := t.Context()
		first := callRecord("tcr_b", "create_task", now().Add(-time.Second))
		second := callRecord("tcr_a", "create_task", now())
		for _, rec := range []store.CallRecord{first, second} {
			must(t, "StartCall", s.StartCall(ctx, rec, ref("att_1", store.Replay{Tool: rec.Tool, ArgsHash: "ab12"})))
		}
		must(t, "StartCall", s.StartCall(ctx, callRecord("tcr_c", "t", now()), ref("att_12", store.Replay{Tool: "t"})))
		must(t, "StartCall", s.StartCall(ctx, callRecord("tcr_d", "t", now()), nil))

		done := finished(first, store.StatusOK)
		must(t, "FinishCall", s.FinishCall(ctx, done, ref("att_1", store.Replay{Tool: first.Tool, ArgsHash: "ab12", Content: `{"id":7}`, IsJSON: true})))

		got, err := s.Replays(ctx, "att_1")
		must(t, "Replays", err)
		same(t, "Replays(att_1), oldest first", []store.Replay{
			{AuditID: "tcr_b", Tool: "create_task", ArgsHash: "ab12", Status: store.StatusOK, Content: `{"id":7}`, IsJSON: true, StartedAt: first.StartedAt},
			{AuditID: "tcr_a", Tool: "create_task", ArgsHash: "ab12", Status: store.StatusStarted, StartedAt: second.StartedAt},
		}, got)
		if rec, _, _ := s.Call(ctx, "tcr_a"); rec.Attempt != "att_1" {
			t.Errorf("call record Attempt = %q, want att_1 from its ref", rec.Attempt)
		}
		if got, err := s.Replays(ctx, "att_2"); err != nil || len(got) != 0 {
			t.Errorf("Replays(att_2) = %v, %v; want none", got, err)
		}
	})
	parallel(t, open, "Also", func(t *testing.T, s store.Store) {
		// A keyed attempt filed under its body's group too: both list
		// the call, and finishing it updates both.
		ctx := t.Context()
		rec := callRecord("tcr_1", "t", now())
		both := &store.AttemptRef{Attempt: "att_key", TTL: 24 * time.Hour, Also: "att_body", AlsoTTL: 10 * time.Minute, Replay: store.Replay{Tool: "t"}}
		must(t, "StartCall", s.StartCall(ctx, rec, both))
		if r, _, _ := s.Call(ctx, "tcr_1"); r.Attempt != "att_key" {
			t.Errorf("call record Attempt = %q, want the first group", r.Attempt)
		}
		both.Replay.Content = "done"
		must(t, "FinishCall", s.FinishCall(ctx, finished(rec, store.StatusOK), both))
		for _, g := range []string{"att_key", "att_body"} {
			got, err := s.Replays(ctx, g)
			if err != nil || len(got) != 1 || got[0].AuditID != "tcr_1" || got[0].Status != store.StatusOK || got[0].Content != "done" {
				t.Errorf("Replays(%s) = %+v, %v; want the finished call", g, got, err)
			}
		}
	})
	parallel(t, open, "TTL", func(t *testing.T, s store.Store) {
		ctx := t.Context()
		rec := callRecord("tcr_1", "t", now())
		// Started an hour ago with a ten-minute TTL: already gone.
		old := store.Replay{Tool: "t", StartedAt: now().Add(-time.Hour)}
		must(t, "StartCall", s.StartCall(ctx, rec, ref("att_1", old)))
		long := &store.AttemptRef{Attempt: "att_2", TTL: 24 * time.Hour, Replay: store.Replay{Tool: "t", StartedAt: old.StartedAt}}
		must(t, "StartCall", s.StartCall(ctx, callRecord("tcr_2", "t", now()), long))
		if got, err := s.Replays(ctx, "att_1"); err != nil || len(got) != 0 {
			t.Errorf("Replays past their TTL = %v, %v; want none", got, err)
		}
		if got, err := s.Replays(ctx, "att_2"); err != nil || len(got) != 1 {
			t.Errorf("Replays within their TTL = %v, %v; want one", got, err)
		}
	})
}
