package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// recorder is a backend that records what reached it; every method it
// does not declare panics (nil Store), so a check that lets a call
// through to the wrong method shows.
type recorder struct {
	Store
	now     time.Time
	reached []string
	turn    TurnRecord
	call    CallRecord
	action  Action
	tool    RuntimeTool
	key     RuntimeKey
	calls   CallQuery
	actions ActionQuery
}

func (r *recorder) Now() time.Time { return r.now }
func (r *recorder) hit(m string)   { r.reached = append(r.reached, m) }

func (r *recorder) SaveTurn(_ context.Context, rec TurnRecord) error {
	r.hit("SaveTurn")
	r.turn = rec
	return nil
}
func (r *recorder) SaveResponse(context.Context, ResponseRecord) error {
	r.hit("SaveResponse")
	return nil
}
func (r *recorder) TextFallback(context.Context, string, string) (bool, error) {
	r.hit("TextFallback")
	return false, nil
}
func (r *recorder) RememberTextFallback(context.Context, string, string) error {
	r.hit("RememberTextFallback")
	return nil
}
func (r *recorder) StartCall(_ context.Context, rec CallRecord, _ *AttemptRef) error {
	r.hit("StartCall")
	r.call = rec
	return nil
}
func (r *recorder) FinishCall(context.Context, CallRecord, *AttemptRef) error {
	r.hit("FinishCall")
	return nil
}
func (r *recorder) RecordCall(_ context.Context, rec CallRecord) error {
	r.hit("RecordCall")
	r.call = rec
	return nil
}
func (r *recorder) Call(context.Context, string) (CallRecord, bool, error) {
	r.hit("Call")
	return CallRecord{}, false, nil
}
func (r *recorder) Calls(_ context.Context, q CallQuery) ([]CallRecord, string, error) {
	r.hit("Calls")
	r.calls = q
	return nil, "", nil
}
func (r *recorder) Replays(context.Context, string) ([]Replay, error) {
	r.hit("Replays")
	return nil, nil
}
func (r *recorder) CreateAction(_ context.Context, a Action) error {
	r.hit("CreateAction")
	r.action = a
	return nil
}
func (r *recorder) Action(context.Context, string) (Action, bool, error) {
	r.hit("Action")
	return Action{}, false, nil
}
func (r *recorder) Actions(_ context.Context, q ActionQuery) ([]Action, error) {
	r.hit("Actions")
	r.actions = q
	return nil, nil
}
func (r *recorder) DecideAction(context.Context, string, string, string, string) (Action, error) {
	r.hit("DecideAction")
	return Action{}, nil
}
func (r *recorder) ApproveEdited(context.Context, string, string, json.RawMessage) (Action, error) {
	r.hit("ApproveEdited")
	return Action{}, nil
}
func (r *recorder) PutTool(_ context.Context, t RuntimeTool) error {
	r.hit("PutTool")
	r.tool = t
	return nil
}
func (r *recorder) DeleteTool(context.Context, string) (bool, error) {
	r.hit("DeleteTool")
	return false, nil
}
func (r *recorder) CreateKey(_ context.Context, k RuntimeKey) error {
	r.hit("CreateKey")
	r.key = k
	return nil
}
func (r *recorder) UpdateKey(context.Context, RuntimeKey) (RuntimeKey, error) {
	r.hit("UpdateKey")
	return RuntimeKey{}, nil
}
func (r *recorder) DeleteKey(context.Context, string) (bool, error) {
	r.hit("DeleteKey")
	return false, nil
}
func (r *recorder) Recover(context.Context, string) (Recovered, error) {
	r.hit("Recover")
	return Recovered{}, nil
}
func (r *recorder) ResolveStarted(context.Context, string, func(string) bool) (int, error) {
	r.hit("ResolveStarted")
	return 0, nil
}

// TestCheckedRefuses is the one table of what every backend used to
// refuse on its own: Checked refuses it, with the same error, before the
// backend sees the call; and lets the same call through with a good
// argument.
func TestCheckedRefuses(t *testing.T) {
	t.Parallel()
	const bad = "has space"
	hash := strings.Repeat("ab", 32)
	ref := func(attempt, also string) *AttemptRef { return &AttemptRef{Attempt: attempt, Also: also} }
	for _, tc := range []struct {
		name string
		// call calls s with a bad argument when bad, else a good one.
		call func(s Store, bad bool) error
		// want is the error's text; it wraps ErrInvalidKey unless plain.
		want  string
		plain bool
	}{
		{"SaveTurn id", func(s Store, b bool) error {
			return s.SaveTurn(t.Context(), TurnRecord{ID: pick(b, "", "chatcmpl-1")})
		}, "saving turn: store: invalid id or name: empty turn id", false},
		{"SaveTurn key", func(s Store, b bool) error {
			return s.SaveTurn(t.Context(), TurnRecord{ID: "chatcmpl-1", Keys: []string{"fp:a", pick(b, "", "fp:b")}})
		}, "saving turn chatcmpl-1: store: invalid id or name: empty lookup key", false},
		{"SaveResponse id", func(s Store, b bool) error {
			return s.SaveResponse(t.Context(), ResponseRecord{ID: pick(b, "", "resp_1")})
		}, "saving response: store: invalid id or name: empty response id", false},
		{"SaveResponse item", func(s Store, b bool) error {
			return s.SaveResponse(t.Context(), ResponseRecord{ID: "resp_1", Items: map[string][]json.RawMessage{pick(b, "", "msg_1"): nil}})
		}, "saving response resp_1: store: invalid id or name: empty item id", false},
		{"TextFallback", func(s Store, b bool) error {
			_, err := s.TextFallback(t.Context(), pick(b, bad, "local"), "m")
			return err
		}, `reading tool mode: store: invalid id or name: upstream "has space"`, false},
		{"RememberTextFallback", func(s Store, b bool) error {
			return s.RememberTextFallback(t.Context(), pick(b, bad, "local"), "m")
		}, `remembering text fallback: store: invalid id or name: upstream "has space"`, false},
		{"StartCall id", func(s Store, b bool) error {
			return s.StartCall(t.Context(), CallRecord{ID: pick(b, bad, "tcr_1")}, nil)
		}, `starting call: store: invalid id or name: call record id "has space"`, false},
		{"StartCall attempt", func(s Store, b bool) error {
			return s.StartCall(t.Context(), CallRecord{ID: "tcr_1"}, ref(pick(b, bad, "att_1"), ""))
		}, `starting call: store: invalid id or name: attempt "has space"`, false},
		{"StartCall also", func(s Store, b bool) error {
			return s.StartCall(t.Context(), CallRecord{ID: "tcr_1"}, ref("att_1", pick(b, bad, "att_2")))
		}, `starting call: store: invalid id or name: attempt "has space"`, false},
		{"FinishCall", func(s Store, b bool) error {
			return s.FinishCall(t.Context(), CallRecord{ID: pick(b, bad, "tcr_1")}, nil)
		}, `finishing call: store: invalid id or name: call record id "has space"`, false},
		{"RecordCall", func(s Store, b bool) error {
			return s.RecordCall(t.Context(), CallRecord{ID: pick(b, bad, "tcr_1")})
		}, `recording call: store: invalid id or name: call record id "has space"`, false},
		{"Call", func(s Store, b bool) error {
			_, _, err := s.Call(t.Context(), pick(b, bad, "tcr_1"))
			return err
		}, `reading call: store: invalid id or name: call record id "has space"`, false},
		{"Replays", func(s Store, b bool) error {
			_, err := s.Replays(t.Context(), pick(b, bad, "att_1"))
			return err
		}, `reading replays: store: invalid id or name: attempt "has space"`, false},
		{"CreateAction", func(s Store, b bool) error {
			return s.CreateAction(t.Context(), Action{ID: pick(b, bad, "act_1")})
		}, `creating action: store: invalid id or name: action id "has space"`, false},
		{"Action", func(s Store, b bool) error {
			_, _, err := s.Action(t.Context(), pick(b, bad, "act_1"))
			return err
		}, `reading action: store: invalid id or name: action id "has space"`, false},
		{"DecideAction id", func(s Store, b bool) error {
			_, err := s.DecideAction(t.Context(), pick(b, bad, "act_1"), ActionApproved, "key_a", "")
			return err
		}, `deciding action: store: invalid id or name: action id "has space"`, false},
		{"DecideAction status", func(s Store, b bool) error {
			_, err := s.DecideAction(t.Context(), "act_1", pick(b, ActionPending, ActionDenied), "key_a", "")
			return err
		}, `deciding action act_1: "pending" is not a decision (want approved, denied or expired)`, true},
		{"PutTool", func(s Store, b bool) error {
			return s.PutTool(t.Context(), RuntimeTool{Name: pick(b, bad, "lookup")})
		}, `saving tool: store: invalid id or name: tool name "has space"`, false},
		{"DeleteTool", func(s Store, b bool) error {
			_, err := s.DeleteTool(t.Context(), pick(b, bad, "lookup"))
			return err
		}, `deleting tool: store: invalid id or name: tool name "has space"`, false},
		{"CreateKey name", func(s Store, b bool) error {
			return s.CreateKey(t.Context(), RuntimeKey{Name: pick(b, bad, "ci"), Hash: hash})
		}, `creating key: store: invalid id or name: key name "has space"`, false},
		{"CreateKey hash", func(s Store, b bool) error {
			return s.CreateKey(t.Context(), RuntimeKey{Name: "ci", Hash: pick(b, strings.ToUpper(hash), hash)})
		}, `creating key ci: store: invalid id or name: key hash is not 64 lower-case hex digits`, false},
		{"UpdateKey", func(s Store, b bool) error {
			_, err := s.UpdateKey(t.Context(), RuntimeKey{Name: pick(b, bad, "ci")})
			return err
		}, `updating key: store: invalid id or name: key name "has space"`, false},
		{"DeleteKey", func(s Store, b bool) error {
			_, err := s.DeleteKey(t.Context(), pick(b, bad, "ci"))
			return err
		}, `deleting key: store: invalid id or name: key name "has space"`, false},
		{"Recover", func(s Store, b bool) error {
			_, err := s.Recover(t.Context(), pick(b, bad, "inst_a"))
			return err
		}, `recovering: store: invalid id or name: instance id "has space"`, false},
		{"ResolveStarted", func(s Store, b bool) error {
			_, err := s.ResolveStarted(t.Context(), pick(b, bad, "inst_a"), nil)
			return err
		}, `resolving started calls: store: invalid id or name: instance id "has space"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			s := Checked(r)
			err := tc.call(s, true)
			if err == nil || err.Error() != tc.want {
				t.Errorf("bad argument: %v, want %q", err, tc.want)
			}
			if wraps := errors.Is(err, ErrInvalidKey); wraps == tc.plain {
				t.Errorf("bad argument: errors.Is(%v, ErrInvalidKey) = %v", err, wraps)
			}
			if len(r.reached) != 0 {
				t.Errorf("bad argument reached the backend: %v", r.reached)
			}
			if err := tc.call(s, false); err != nil || len(r.reached) != 1 {
				t.Errorf("good argument: %v, reached %v; want it passed to the backend", err, r.reached)
			}
		})
	}
}

// pick is bad when b, else good.
func pick(b bool, bad, good string) string {
	if b {
		return bad
	}
	return good
}

// TestCheckedDefaults: zero times are the backend's clock, a started
// call is started and in its attempt, a new action pending, and page
// sizes bounded, before the backend sees the call; times set stay.
func TestCheckedDefaults(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	set := at.Add(-time.Hour)
	r := &recorder{now: at}
	s := Checked(r)

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.SaveTurn(ctx, TurnRecord{ID: "chatcmpl-1"}))
	if !r.turn.CreatedAt.Equal(at) {
		t.Errorf("turn CreatedAt = %v, want the backend's now", r.turn.CreatedAt)
	}
	must(s.StartCall(ctx, CallRecord{ID: "tcr_1", Status: StatusOK}, &AttemptRef{Attempt: "att_1"}))
	if c := r.call; !c.StartedAt.Equal(at) || c.Status != StatusStarted || c.Attempt != "att_1" {
		t.Errorf("started call = %v %q %q, want now, started, att_1", c.StartedAt, c.Status, c.Attempt)
	}
	must(s.RecordCall(ctx, CallRecord{ID: "tcr_2", StartedAt: set, Status: StatusDenied}))
	if c := r.call; !c.StartedAt.Equal(set) || c.Status != StatusDenied {
		t.Errorf("recorded call = %v %q, want its own start and status", c.StartedAt, c.Status)
	}
	must(s.CreateAction(ctx, Action{ID: "act_1", Status: ActionApproved}))
	if a := r.action; !a.CreatedAt.Equal(at) || a.Status != ActionPending {
		t.Errorf("action = %v %q, want now, pending", a.CreatedAt, a.Status)
	}
	must(s.PutTool(ctx, RuntimeTool{Name: "lookup"}))
	if tl := r.tool; !tl.UpdatedAt.Equal(at) || !tl.CreatedAt.IsZero() {
		t.Errorf("tool = %v / %v, want zero (the backend's to fill) / now", tl.CreatedAt, tl.UpdatedAt)
	}
	must(s.CreateKey(ctx, RuntimeKey{Name: "ci", Hash: strings.Repeat("ab", 32), CreatedAt: set}))
	if k := r.key; !k.CreatedAt.Equal(set) || !k.UpdatedAt.Equal(at) {
		t.Errorf("key = %v / %v, want its own creation / now", k.CreatedAt, k.UpdatedAt)
	}
	for limit, want := range map[int]int{0: DefaultCallPage, -1: DefaultCallPage, 7: 7, 10_000: MaxCallPage} {
		_, _, err := s.Calls(ctx, CallQuery{Limit: limit})
		must(err)
		if r.calls.Limit != want {
			t.Errorf("Calls limit %d reached the backend as %d, want %d", limit, r.calls.Limit, want)
		}
	}
	for limit, want := range map[int]int{0: DefaultActionList, 7: 7} {
		_, err := s.Actions(ctx, ActionQuery{Limit: limit})
		must(err)
		if r.actions.Limit != want {
			t.Errorf("Actions limit %d reached the backend as %d, want %d", limit, r.actions.Limit, want)
		}
	}
}
