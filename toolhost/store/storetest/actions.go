package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

// action is a pending approval of key created at the given time.
func action(id, key string, at time.Time) store.Action {
	return store.Action{
		ID:        id,
		TurnID:    "chatcmpl-1",
		CallID:    "call_" + id,
		Tool:      "delete_file",
		Arguments: json.RawMessage(`{"path":"docs/x"}`),
		Status:    store.ActionPending,
		Approval:  "always",
		CreatedAt: at,
		ExpiresAt: at.Add(5 * time.Minute),
		KeyID:     key,
		AuditID:   "tcr_" + id,
		Instance:  "inst_a",
	}
}

// wantAction checks that id reads as want, or as nothing when want has no
// id.
func wantAction(t *testing.T, s store.Store, id string, want store.Action) {
	t.Helper()
	got, ok, err := s.Action(t.Context(), id)
	wantRead(t, "Action("+id+")", got, ok, err, want, want.ID != "")
}

func testActions(t *testing.T, open opener) {
	parallel(t, open, "CreateAndList", func(t *testing.T, s store.Store) {
		ctx := t.Context()
		base := now().Add(-time.Minute)
		var all []store.Action // newest first
		for i, key := range []string{"key_a", "key_b", "key_a", "key_a"} {
			a := action(fmt.Sprintf("act_%d", i), key, base.Add(time.Duration(i)*time.Second))
			must(t, "CreateAction", s.CreateAction(ctx, a))
			all = append([]store.Action{a}, all...)
		}
		wantAction(t, s, "act_1", all[2])
		wantAction(t, s, "act_9", store.Action{})
		denied, err := s.DecideAction(ctx, "act_2", store.ActionDenied, "key_admin", "not today")
		must(t, "DecideAction", err)
		all[1] = denied

		for _, tc := range []struct {
			q    store.ActionQuery
			want []store.Action
		}{
			{store.ActionQuery{All: true}, all},
			{store.ActionQuery{KeyID: "key_a"}, []store.Action{all[0], all[1], all[3]}},
			{store.ActionQuery{KeyID: "key_b", All: true}, all},
			{store.ActionQuery{KeyID: "key_c"}, nil},
			{store.ActionQuery{KeyID: "key_a", Status: store.ActionPending}, []store.Action{all[0], all[3]}},
			{store.ActionQuery{All: true, Status: store.ActionDenied}, []store.Action{all[1]}},
			{store.ActionQuery{All: true, Limit: 2}, all[:2]},
		} {
			got, err := s.Actions(ctx, tc.q)
			must(t, "Actions", err)
			same(t, fmt.Sprintf("Actions(%+v)", tc.q), tc.want, got)
		}
	})
	parallel(t, open, "Expiry", func(t *testing.T, s store.Store) {
		must(t, "CreateAction", s.CreateAction(t.Context(), action("act_old", "key_a", expiredAt())))
		wantAction(t, s, "act_old", store.Action{})
		if got, err := s.Actions(t.Context(), store.ActionQuery{All: true}); err != nil || len(got) != 0 {
			t.Errorf("Actions = %v, %v; want none", got, err)
		}
	})
}

func testDecideAction(t *testing.T, open opener) {
	parallel(t, open, "Once", func(t *testing.T, s store.Store) {
		ctx := t.Context()
		a := action("act_1", "key_a", now())
		must(t, "CreateAction", s.CreateAction(ctx, a))
		got, err := s.DecideAction(ctx, "act_1", store.ActionApproved, "key_admin", "")
		must(t, "DecideAction", err)
		if got.DecidedAt == nil || !recent(*got.DecidedAt) {
			t.Errorf("DecidedAt = %v, want now", got.DecidedAt)
		}
		want := a
		want.Status, want.DecidedBy, want.DecidedAt = store.ActionApproved, "key_admin", got.DecidedAt
		same(t, "decided action", want, got)
		wantAction(t, s, "act_1", want)

		again, err := s.DecideAction(ctx, "act_1", store.ActionDenied, "key_other", "no")
		wantErr(t, "second DecideAction", err, store.ErrDecided)
		same(t, "action returned with ErrDecided", want, again)
		wantAction(t, s, "act_1", want)
	})
	parallel(t, open, "Unknown", func(t *testing.T, s store.Store) {
		_, err := s.DecideAction(t.Context(), "act_9", store.ActionApproved, "key_admin", "")
		wantErr(t, "DecideAction of an unknown id", err, store.ErrNotFound)
	})
	parallel(t, open, "NotADecision", func(t *testing.T, s store.Store) {
		a := action("act_1", "key_a", now())
		must(t, "CreateAction", s.CreateAction(t.Context(), a))
		for _, st := range []string{store.ActionPending, "", "maybe"} {
			if _, err := s.DecideAction(t.Context(), "act_1", st, "key_admin", ""); err == nil || errors.Is(err, store.ErrDecided) {
				t.Errorf("DecideAction(%q) = %v, want a usage error", st, err)
			}
		}
		wantAction(t, s, "act_1", a)
	})
	parallel(t, open, "TooLate", func(t *testing.T, s store.Store) {
		a := action("act_1", "key_a", now().Add(-10*time.Minute)) // expired 5 minutes ago
		must(t, "CreateAction", s.CreateAction(t.Context(), a))
		got, err := s.DecideAction(t.Context(), "act_1", store.ActionApproved, "key_admin", "")
		wantErr(t, "DecideAction after ExpiresAt", err, store.ErrDecided)
		if got.Status != store.ActionExpired {
			t.Errorf("status after a late approval = %q, want expired", got.Status)
		}
	})
	parallel(t, open, "Race", func(t *testing.T, s store.Store) {
		// Exactly one of n deciders wins; every loser sees its decision.
		const n = 16
		must(t, "CreateAction", s.CreateAction(t.Context(), action("act_1", "key_a", now())))
		type result struct {
			a   store.Action
			err error
		}
		results := make([]result, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				status := store.ActionApproved
				if i%2 == 1 {
					status = store.ActionDenied
				}
				a, err := s.DecideAction(t.Context(), "act_1", status, fmt.Sprintf("key_%02d", i), "")
				results[i] = result{a, err}
			})
		}
		close(start)
		wg.Wait()
		var winners []store.Action
		for i, r := range results {
			switch {
			case r.err == nil:
				winners = append(winners, r.a)
			case !errors.Is(r.err, store.ErrDecided):
				t.Errorf("decider %d: %v, want nil or ErrDecided", i, r.err)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("%d deciders won, want exactly 1", len(winners))
		}
		for i, r := range results {
			same(t, fmt.Sprintf("decider %d's view", i), winners[0], r.a)
		}
		wantAction(t, s, "act_1", winners[0])
	})
}

// testApproveEdited: an approval with the approver's arguments, decided once.
func testApproveEdited(t *testing.T, open opener) {
	parallel(t, open, "Once", func(t *testing.T, s store.Store) {
		ctx := t.Context()
		a := action("act_1", "key_a", now())
		must(t, "CreateAction", s.CreateAction(ctx, a))
		edit := json.RawMessage(`{"amount":40}`)
		got, err := s.ApproveEdited(ctx, "act_1", "key_admin", edit)
		must(t, "ApproveEdited", err)
		want := a
		want.Status, want.DecidedBy, want.DecidedAt, want.EditedArguments = store.ActionApproved, "key_admin", got.DecidedAt, edit
		same(t, "approved action", want, got)
		wantAction(t, s, "act_1", want)
		_, err = s.ApproveEdited(ctx, "act_1", "key_other", json.RawMessage(`{"amount":1}`))
		wantErr(t, "second ApproveEdited", err, store.ErrDecided)
		wantAction(t, s, "act_1", want)
		if _, err := s.ApproveEdited(ctx, "act_1", "key_admin", json.RawMessage(`{`)); err == nil {
			t.Error("ApproveEdited with arguments that are not JSON succeeded")
		}
	})
}
