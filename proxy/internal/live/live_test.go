package live

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/toolstream/toolstream/loop"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func clock() time.Time { return time.Unix(1800000000, 0) }

func decode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

// TestTurnChanges: each event of a turn changes what it shows, and only
// those that change something are sent.
func TestTurnChanges(t *testing.T) {
	r := New(clock)
	sub, first, err := r.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if s := decode[Snapshot](t, first); s.Type != TypeSnapshot || s.Turns == nil || len(s.Turns) != 0 {
		t.Fatalf("first %s", first)
	}
	e := r.Start("app", "m", "chat")
	if m := decode[Change](t, <-sub.C()); m.Type != TypeTurnStarted || m.Turn.Key != "app" || m.Turn.Model != "m" || m.Turn.Route != "chat" || m.Turn.Round != 1 {
		t.Errorf("start %+v", m)
	}
	exp := clock().Add(time.Minute)
	for _, tc := range []struct {
		ev     loop.Event
		typ    string
		calls  []Call
		round  int
		turnID string
	}{
		{loop.Event{Event: "tool.started", CallID: "c1", Name: "create", Round: 1, Arguments: json.RawMessage(`{"a":1}`)}, TypeCallRunning,
			[]Call{{CallID: "c1", Tool: "create", Status: CallRunning}}, 1, "turn_1"},
		{loop.Event{Event: "tool.started", CallID: "c2", Name: "ask", Round: 1}, TypeCallRunning,
			[]Call{{CallID: "c1", Tool: "create", Status: CallRunning}, {CallID: "c2", Tool: "ask", Status: CallRunning}}, 1, "turn_1"},
		{loop.Event{Event: "tool.progress", CallID: "c1"}, "", nil, 1, "turn_1"},
		{loop.Event{Event: "approval.requested", CallID: "c2", Name: "ask", ActionID: "act_1", ExpiresAt: &exp, Arguments: json.RawMessage(`{"q":"[redacted]"}`)}, TypeApprovalWaiting,
			[]Call{{CallID: "c1", Tool: "create", Status: CallRunning}, {CallID: "c2", Tool: "ask", Status: CallWaiting, ActionID: "act_1", ExpiresAt: &exp, Arguments: json.RawMessage(`{"q":"[redacted]"}`)}}, 1, "turn_1"},
		{loop.Event{Event: "tool.finished", CallID: "c1", Status: "ok"}, TypeCallFinished,
			[]Call{{CallID: "c2", Tool: "ask", Status: CallWaiting, ActionID: "act_1", ExpiresAt: &exp, Arguments: json.RawMessage(`{"q":"[redacted]"}`)}}, 1, "turn_1"},
		{loop.Event{Event: "approval.resolved", CallID: "c2", ActionID: "act_1", Decision: "approved"}, TypeApprovalResolved,
			[]Call{{CallID: "c2", Tool: "ask", Status: CallRunning, ActionID: "act_1", Arguments: json.RawMessage(`{"q":"[redacted]"}`)}}, 1, "turn_1"},
		{loop.Event{Event: "tool.finished", CallID: "c2", Status: "ok"}, TypeCallFinished, []Call{}, 1, "turn_1"},
		{loop.Event{Event: "tool.finished", CallID: "c9"}, "", nil, 1, "turn_1"},
		{loop.Event{Event: "round.started", Round: 2}, TypeRoundStarted, []Call{}, 2, "turn_1"},
	} {
		e.Watch("turn_1", &tc.ev)
		if tc.typ == "" {
			if len(sub.C()) != 0 {
				t.Errorf("%s changed nothing shown, but was sent", tc.ev.Event)
			}
			continue
		}
		m := decode[Change](t, <-sub.C())
		for i := range tc.calls {
			tc.calls[i].StartedAt = clock().UTC()
		}
		if m.Type != tc.typ || m.CallID != tc.ev.CallID || m.Turn.Round != tc.round || m.Turn.TurnID != tc.turnID || m.Turn.Key != "app" {
			t.Errorf("%s: sent %+v", tc.ev.Event, m)
		}
		if diff := cmp.Diff(tc.calls, m.Turn.Calls); diff != "" {
			t.Errorf("%s: calls (-want +got):\n%s", tc.ev.Event, diff)
		}
	}
	e.End()
	e.End() // twice: nothing more
	if m := decode[Change](t, <-sub.C()); m.Type != TypeTurnEnded || m.Turn.ID != e.id {
		t.Errorf("end %+v", m)
	}
	if len(sub.C()) != 0 {
		t.Errorf("a second End sent something")
	}
}

// TestSlowReaderResnapshots: a reader that stops reading never holds a
// turn up: past its queue it loses the changes, is told, and its resync
// is a snapshot of the turns as they stand, after which it follows again.
func TestSlowReaderResnapshots(t *testing.T) {
	r := New(clock)
	sub, _, err := r.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	e := r.Start("app", "m", "chat")
	for i := range 3 * queueLen { // far past the queue: must not block
		e.Watch("turn_1", &loop.Event{Event: "round.started", Round: i + 2})
	}
	select {
	case <-sub.Lagged():
	default:
		t.Fatal("the reader was not told it lost changes")
	}
	s := decode[Snapshot](t, sub.Resync())
	if len(s.Turns) != 1 || s.Turns[0].Round != 3*queueLen+1 {
		t.Fatalf("resync %+v", s)
	}
	if len(sub.C()) != 0 {
		t.Errorf("stale changes left after the resync: %d", len(sub.C()))
	}
	e.End()
	if m := decode[Change](t, <-sub.C()); m.Type != TypeTurnEnded {
		t.Errorf("after the resync %+v", m)
	}
}

// TestBounds: turns past MaxTurns run unshown (a nil entry does nothing),
// and readers past MaxSubs are refused.
func TestBounds(t *testing.T) {
	r := New(clock)
	for range MaxTurns {
		r.Start("k", "m", "chat")
	}
	e := r.Start("k", "m", "chat")
	if e != nil || r.Untracked() != 1 {
		t.Fatalf("entry %v, untracked %d", e, r.Untracked())
	}
	e.Watch("t", &loop.Event{Event: "round.started", Round: 2})
	e.End()
	var subs []*Sub
	for range MaxSubs {
		s, _, err := r.Subscribe()
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, s)
	}
	if _, _, err := r.Subscribe(); err != ErrTooManySubs {
		t.Errorf("reader past the cap: %v", err)
	}
	subs[0].Close()
	if s, _, err := r.Subscribe(); err != nil {
		t.Errorf("after a reader left: %v", err)
	} else {
		s.Close()
	}
}
