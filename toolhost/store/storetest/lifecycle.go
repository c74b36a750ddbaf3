package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

func testTools(t *testing.T, open opener) {
	parallel(t, open, "CRUD", func(t *testing.T, s store.Store) {
		ctx := t.Context()
		created := now().Add(-time.Hour)
		b := store.RuntimeTool{Name: "b_tool", Spec: json.RawMessage(`{"name":"b_tool","webhook":{"url":"http://h/b"}}`), CreatedAt: created, UpdatedAt: created}
		a := store.RuntimeTool{Name: "a_tool", Spec: json.RawMessage(`{"name":"a_tool","webhook":{"url":"http://h/a"}}`), CreatedAt: created, UpdatedAt: created}
		for _, tool := range []store.RuntimeTool{b, a} {
			must(t, "PutTool", s.PutTool(ctx, tool))
		}
		got, err := s.Tools(ctx)
		must(t, "Tools", err)
		same(t, "Tools, by name", []store.RuntimeTool{a, b}, got)

		// Replacing with zero times keeps CreatedAt and sets UpdatedAt.
		b2 := store.RuntimeTool{Name: "b_tool", Spec: json.RawMessage(`{"name":"b_tool","webhook":{"url":"http://h/b2"}}`)}
		must(t, "PutTool again", s.PutTool(ctx, b2))
		got, err = s.Tools(ctx)
		must(t, "Tools", err)
		if len(got) != 2 || !got[1].CreatedAt.Equal(created) || !recent(got[1].UpdatedAt) || string(got[1].Spec) == string(b.Spec) {
			t.Errorf("replaced tool = %+v; want the new spec, CreatedAt %v, UpdatedAt now", got, created)
		}

		for _, want := range []bool{true, false} {
			if existed, err := s.DeleteTool(ctx, "a_tool"); err != nil || existed != want {
				t.Errorf("DeleteTool(a_tool) = %v, %v; want %v", existed, err, want)
			}
		}
		got, err = s.Tools(ctx)
		if err != nil || len(got) != 1 || got[0].Name != "b_tool" {
			t.Errorf("Tools after delete = %+v, %v; want b_tool only", got, err)
		}
	})
	parallel(t, open, "NewSetsTimes", func(t *testing.T, s store.Store) {
		must(t, "PutTool", s.PutTool(t.Context(), store.RuntimeTool{Name: "t", Spec: json.RawMessage(`{}`)}))
		got, err := s.Tools(t.Context())
		if err != nil || len(got) != 1 || !recent(got[0].CreatedAt) || !recent(got[0].UpdatedAt) {
			t.Errorf("Tools = %+v, %v; want one tool created and updated now", got, err)
		}
	})
}

func testRecover(t *testing.T, open opener) {
	parallel(t, open, "OtherInstances", func(t *testing.T, s store.Store) {
		ctx := t.Context()
		const dead, current = "inst_dead", "inst_now"
		ref := &store.AttemptRef{Attempt: "att_1", TTL: time.Hour, Replay: store.Replay{Tool: "t"}}
		lost := callRecord("tcr_lost", "t", now())
		lost.Instance, lost.Attempt = dead, "att_1"
		mine := callRecord("tcr_mine", "t", now())
		mine.Instance = current
		done := callRecord("tcr_done", "t", now())
		done.Instance = dead
		must(t, "StartCall", s.StartCall(ctx, lost, ref))
		must(t, "StartCall", s.StartCall(ctx, mine, nil))
		must(t, "StartCall", s.StartCall(ctx, done, nil))
		done = finished(done, store.StatusOK)
		must(t, "FinishCall", s.FinishCall(ctx, done, nil))
		waitingCall := callRecord("tcr_waiting", "t", now())
		waitingCall.Instance, waitingCall.Executed = dead, false
		waitingCall.Status = store.StatusPendingApproval
		waitingCall.Approval = &store.Decision{ActionID: "act_lost", Decision: "pending", At: now()}
		must(t, "RecordCall", s.RecordCall(ctx, waitingCall))

		waiting := action("act_lost", "key_a", now())
		waiting.Instance = dead
		held := action("act_mine", "key_a", now())
		held.Instance = current
		decided := action("act_done", "key_a", now())
		decided.Instance = dead
		for _, a := range []store.Action{waiting, held, decided} {
			must(t, "CreateAction", s.CreateAction(ctx, a))
		}
		decided, err := s.DecideAction(ctx, "act_done", store.ActionApproved, "key_admin", "")
		must(t, "DecideAction", err)

		got, err := s.Recover(ctx, current)
		must(t, "Recover", err)
		same(t, "Recovered", store.Recovered{Calls: 1, CallsExpired: 1, Actions: 1}, got)
		w, ok, err := s.Call(ctx, "tcr_waiting")
		must(t, "Call", err)
		if !ok || w.Status != store.StatusExpired || w.Executed || w.FinishedAt == nil || w.Approval == nil ||
			w.Approval.ActionID != "act_lost" || w.Approval.Decision != store.ActionExpired || w.Approval.DecidedBy != store.DecidedByCrash {
			t.Errorf("call pending approval after Recover = %+v (approval %+v); want expired by %s, not executed", w, w.Approval, store.DecidedByCrash)
		}

		lost.Status = store.StatusOutcomeUnknown
		wantCall(t, s, "tcr_lost", lost)
		wantCall(t, s, "tcr_mine", mine)
		wantCall(t, s, "tcr_done", done)
		if r, err := s.Replays(ctx, "att_1"); err != nil || len(r) != 1 || r[0].Status != store.StatusOutcomeUnknown {
			t.Errorf("replays of the lost call = %+v, %v; want one, outcome_unknown", r, err)
		}
		expired, _, err := s.Action(ctx, "act_lost")
		must(t, "Action", err)
		if expired.Status != store.ActionExpired || expired.DecidedBy != store.DecidedByCrash || expired.DecidedAt == nil {
			t.Errorf("recovered action = %+v; want expired by %s", expired, store.DecidedByCrash)
		}
		wantAction(t, s, "act_mine", held)
		wantAction(t, s, "act_done", decided)

		got, err = s.Recover(ctx, "inst_later")
		must(t, "Recover again", err)
		same(t, "second Recovered", store.Recovered{Calls: 1, Actions: 1}, got) // only act_mine and tcr_mine were left
		if again, err := s.Recover(ctx, "inst_later"); err != nil || again != (store.Recovered{}) {
			t.Errorf("third Recover = %+v, %v; want nothing left", again, err)
		}
	})
}

// badNames are ids no backend may take as key parts.
var badNames = []string{"", "a/b", "../../etc/passwd", "a b", "é", "a\x00", "\x00", strings.Repeat("a", store.MaxNameLen+1), strings.Repeat("a", 10<<10)}

func testInvalidKey(t *testing.T, open opener) {
	parallel(t, open, "EveryMethod", func(t *testing.T, s store.Store) {
		ctx := t.Context()
		ref := func(attempt string) *store.AttemptRef { return &store.AttemptRef{Attempt: attempt, TTL: time.Minute} }
		for _, bad := range badNames {
			for name, call := range map[string]func() error{
				"StartCall":     func() error { return s.StartCall(ctx, callRecord(bad, "t", now()), nil) },
				"StartCall ref": func() error { return s.StartCall(ctx, callRecord("tcr_1", "t", now()), ref(bad)) },
				"FinishCall":    func() error { return s.FinishCall(ctx, callRecord(bad, "t", now()), nil) },
				"RecordCall":    func() error { return s.RecordCall(ctx, callRecord(bad, "t", now())) },
				"Call":          func() error { _, _, err := s.Call(ctx, bad); return err },
				"Replays":       func() error { _, err := s.Replays(ctx, bad); return err },
				"CreateAction":  func() error { return s.CreateAction(ctx, action(bad, "key_a", now())) },
				"Action":        func() error { _, _, err := s.Action(ctx, bad); return err },
				"DecideAction": func() error {
					_, err := s.DecideAction(ctx, bad, store.ActionApproved, "key_admin", "")
					return err
				},
				"PutTool":    func() error { return s.PutTool(ctx, store.RuntimeTool{Name: bad, Spec: json.RawMessage(`{}`)}) },
				"DeleteTool": func() error { _, err := s.DeleteTool(ctx, bad); return err },
				"CreateKey":  func() error { return s.CreateKey(ctx, runtimeKeyNamed(bad)) },
				"UpdateKey":  func() error { _, err := s.UpdateKey(ctx, runtimeKeyNamed(bad)); return err },
				"DeleteKey":  func() error { _, err := s.DeleteKey(ctx, bad); return err },
			} {
				wantErr(t, fmt.Sprintf("%s(%.20q)", name, bad), call(), store.ErrInvalidKey)
			}
		}
		// Nothing was written under a valid id by the refused calls.
		if _, ok, err := s.Call(ctx, "tcr_1"); err != nil || ok {
			t.Errorf("Call(tcr_1) = %v, %v; want nothing", ok, err)
		}
		if keys, err := s.Keys(ctx); err != nil || len(keys) != 0 {
			t.Errorf("Keys = %+v, %v; want none", keys, err)
		}
	})
}

func testLifecycle(t *testing.T, open opener) {
	parallel(t, open, "Close", func(t *testing.T, s store.Store) {
		ctx := t.Context()
		if err := s.Ready(); err != nil {
			t.Errorf("Ready while open = %v", err)
		}
		must(t, "Close", s.Close())
		wantErr(t, "Ready after Close", s.Ready(), store.ErrClosed)
		for name, err := range closedErrors(ctx, s) {
			wantErr(t, name+" after Close", err, store.ErrClosed)
		}
		if err := s.Close(); err != nil {
			t.Errorf("second Close = %v, want nil", err)
		}
	})
	parallel(t, open, "CanceledContext", func(t *testing.T, s store.Store) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		wantErr(t, "SaveTurn", s.SaveTurn(ctx, turnRecord("chatcmpl-1", "fp:01")), context.Canceled)
		_, _, err := s.FindTurn(ctx, "fp:01")
		wantErr(t, "FindTurn", err, context.Canceled)
		wantErr(t, "StartCall", s.StartCall(ctx, callRecord("tcr_1", "t", now()), nil), context.Canceled)
		_, _, err = s.Calls(ctx, store.CallQuery{})
		wantErr(t, "Calls", err, context.Canceled)
		if _, ok, _ := s.Call(t.Context(), "tcr_1"); ok {
			t.Error("StartCall with a canceled context wrote its record")
		}
	})
}

// closedErrors calls every method of s and returns what each returned.
func closedErrors(ctx context.Context, s store.Store) map[string]error {
	errs := map[string]error{}
	errs["SaveTurn"] = s.SaveTurn(ctx, turnRecord("chatcmpl-1", "fp:01"))
	_, _, errs["FindTurn"] = s.FindTurn(ctx, "fp:01")
	_, errs["TextFallback"] = s.TextFallback(ctx, "local", "qwen3")
	errs["RememberTextFallback"] = s.RememberTextFallback(ctx, "local", "qwen3")
	errs["StartCall"] = s.StartCall(ctx, callRecord("tcr_1", "t", now()), nil)
	errs["FinishCall"] = s.FinishCall(ctx, callRecord("tcr_1", "t", now()), nil)
	errs["RecordCall"] = s.RecordCall(ctx, callRecord("tcr_1", "t", now()))
	_, _, errs["Call"] = s.Call(ctx, "tcr_1")
	_, _, errs["Calls"] = s.Calls(ctx, store.CallQuery{})
	_, errs["Replays"] = s.Replays(ctx, "att_1")
	errs["CreateAction"] = s.CreateAction(ctx, action("act_1", "key_a", now()))
	_, _, errs["Action"] = s.Action(ctx, "act_1")
	_, errs["Actions"] = s.Actions(ctx, store.ActionQuery{All: true})
	_, errs["DecideAction"] = s.DecideAction(ctx, "act_1", store.ActionApproved, "key_admin", "")
	errs["PutTool"] = s.PutTool(ctx, store.RuntimeTool{Name: "t", Spec: json.RawMessage(`{}`)})
	_, errs["DeleteTool"] = s.DeleteTool(ctx, "t")
	_, errs["Tools"] = s.Tools(ctx)
	errs["CreateKey"] = s.CreateKey(ctx, runtimeKey("k"))
	_, errs["UpdateKey"] = s.UpdateKey(ctx, runtimeKey("k"))
	_, errs["DeleteKey"] = s.DeleteKey(ctx, "k")
	_, errs["Keys"] = s.Keys(ctx)
	_, errs["Recover"] = s.Recover(ctx, "inst_a")
	return errs
}
