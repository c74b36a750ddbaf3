package store

import (
	"fmt"
	"slices"
	"testing"
)

// held is a subscriber that blocks in its first change until released,
// as one waiting seconds for a database does, and records what it heard.
type held struct {
	entered chan struct{}
	release chan struct{}
	heard   chan Change
	first   bool
}

func subscribeHeld(t *testing.T, h *Hub) *held {
	s := &held{entered: make(chan struct{}), release: make(chan struct{}), heard: make(chan Change, 2*MaxPendingChanges)}
	t.Cleanup(h.Subscribe(func(c Change) {
		if !s.first {
			s.first = true
			close(s.entered)
			<-s.release
		}
		s.heard <- c
	}))
	return s
}

// until releases the subscriber and returns what it heard up to and
// including the first of last and end.
func (s *held) until(last, end Change) []Change {
	close(s.release)
	var got []Change
	for c := range s.heard {
		got = append(got, c)
		if c == last || c == end {
			break
		}
	}
	return got
}

func action(id string) Change { return Change{Kind: ChangeAction, ID: id} }

var resync = Change{Kind: ChangeResync}

// TestHubQueue: while a subscriber is busy, what is published for it is
// merged (a change waiting already is not queued again), a resync stands
// for everything before and during its wait, and a flood past the bound
// becomes one resync — delivered in order, with every Publish returning
// at once.
func TestHubQueue(t *testing.T) {
	flood := make([]Change, 3*MaxPendingChanges)
	for i := range flood {
		flood[i] = Change{Kind: ChangeCall, ID: fmt.Sprintf("tcr_%d", i)}
	}
	end := Change{Kind: ChangeKeys, ID: "end"}
	for _, tc := range []struct {
		name      string
		published []Change
		want      []Change
	}{
		{"repeats merged", []Change{action("a"), action("b"), action("a"), action("b"), action("a"), {Kind: ChangeCall, ID: "a"}},
			[]Change{action("a"), action("b"), {Kind: ChangeCall, ID: "a"}}},
		{"resync drops what waits", []Change{action("a"), resync, action("b"), resync},
			[]Change{resync}},
		{"flood becomes a resync", flood, []Change{resync}},
		{"flood then more", append(slices.Clip(flood), action("late")), []Change{resync}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h Hub
			defer h.Close()
			s := subscribeHeld(t, &h)
			h.Publish(action("first"))
			<-s.entered
			for _, c := range tc.published {
				h.Publish(c)
			}
			h.Publish(end)
			want := append([]Change{action("first")}, tc.want...)
			if tc.want[0] != resync {
				want = append(want, end) // else the resync covers it
			}
			got := s.until(want[len(want)-1], end)
			if !slices.Equal(got, want) {
				if len(got) > 8 {
					t.Fatalf("heard %d changes (%v …), want %v", len(got), got[:8], want)
				}
				t.Fatalf("heard %v, want %v", got, want)
			}
		})
	}
}
