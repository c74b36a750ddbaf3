// Package live keeps the turns in progress in this process, for GET
// /admin/live: what each turn is doing now (its round, its calls running
// or waiting for approval), and a feed of every change to it.
//
// Turns write to the [Registry] from their own goroutines and never wait
// for a reader: each [Sub] has a bounded queue, and a reader that falls
// behind loses its queue and is given a fresh snapshot instead (drop and
// resnapshot), so a slow admin client cannot slow a turn.
package live

import (
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Call statuses, as [Call.Status] says them.
const (
	CallRunning = "running"
	CallWaiting = "waiting_approval"
)

// Change types, as [Change.Type] says them.
const (
	TypeSnapshot         = "snapshot"
	TypeTurnStarted      = "turn.started"
	TypeRoundStarted     = "round.started"
	TypeCallRunning      = "call.running"
	TypeApprovalWaiting  = "approval.waiting"
	TypeApprovalResolved = "approval.resolved"
	TypeCallFinished     = "call.finished"
	TypeTurnEnded        = "turn.ended"
)

// Call is a call of a turn that has not finished.
type Call struct {
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	// Status is running or waiting_approval.
	Status string `json:"status"`
	// ActionID and ExpiresAt name the approval a waiting call waits for.
	ActionID  string     `json:"action_id,omitempty"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// Arguments are the call's arguments as its approval holds them
	// (redact fields masked): only on a call that waited for one.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	StartedAt time.Time       `json:"started_at"`
}

// Turn is a turn in progress.
type Turn struct {
	// ID is this view's id of the turn, stable from its start; TurnID is
	// the id its calls and approvals are filed under, once it has one
	// (turns without server tools have none).
	ID     string `json:"id"`
	TurnID string `json:"turn_id,omitempty"`
	// Key is the client key's name; empty when the proxy runs without
	// keys.
	Key   string `json:"key"`
	Model string `json:"model"`
	// Route is chat, responses or messages.
	Route     string    `json:"route"`
	Round     int       `json:"round"`
	StartedAt time.Time `json:"started_at"`
	// Calls are the turn's calls running or waiting, in the order found.
	Calls []Call `json:"calls"`
}

// Change is one message of the feed after the snapshot: one turn as it
// stands after a change (CallID names the call the change was about).
// turn.ended carries the turn as it last stood.
type Change struct {
	Type   string `json:"type"`
	Turn   *Turn  `json:"turn"`
	CallID string `json:"call_id,omitempty"`
}

// Snapshot is the feed's first message, and the one after a reader fell
// behind: every turn in progress, oldest first.
type Snapshot struct {
	Type  string `json:"type"`
	Turns []Turn `json:"turns"`
}

// Bounds.
const (
	// MaxTurns is how many turns a registry shows; the turns past it run
	// as usual, unshown (Untracked counts them).
	MaxTurns = 4096
	// MaxSubs is how many readers may follow a registry at once.
	MaxSubs = 64
	// queueLen is how many changes a reader may fall behind before it is
	// resnapshotted.
	queueLen = 256
)

// Registry holds the turns in progress in this process. The zero value
// is not usable; use [New]. It is safe for concurrent use.
type Registry struct {
	now func() time.Time

	mu        sync.Mutex
	turns     map[string]*Turn
	subs      map[*Sub]struct{}
	untracked int
}

// New returns an empty registry on clock now (nil: time.Now).
func New(now func() time.Time) *Registry {
	if now == nil {
		now = time.Now
	}
	return &Registry{now: now, turns: map[string]*Turn{}, subs: map[*Sub]struct{}{}}
}

// Entry is one turn's handle on the registry: its Watch method is the
// turn's [loop.Turn.Watch], End removes it. A nil Entry (a turn past
// MaxTurns) does nothing.
type Entry struct {
	r  *Registry
	id string
}

// Start shows a turn from now on and returns its entry; nil when the
// registry is full.
func (r *Registry) Start(key, model, route string) *Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.turns) >= MaxTurns {
		r.untracked++
		return nil
	}
	t := &Turn{ID: store.NewID("live_"), Key: key, Model: model, Route: route, Round: 1, StartedAt: r.now().UTC(), Calls: []Call{}}
	r.turns[t.ID] = t
	r.publish(TypeTurnStarted, t, "")
	return &Entry{r: r, id: t.ID}
}

// Untracked counts the turns not shown because the registry was full.
func (r *Registry) Untracked() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.untracked
}

// Watch applies one of the turn's events (see [loop.Turn.Watch]).
func (e *Entry) Watch(turnID string, ev *loop.Event) {
	e.locked(func(r *Registry, t *Turn) {
		if turnID != "" {
			t.TurnID = turnID
		}
		if typ := t.apply(ev, r.now().UTC()); typ != "" {
			r.publish(typ, t, ev.CallID)
		}
	})
}

// End removes the turn; the feed says turn.ended.
func (e *Entry) End() {
	e.locked(func(r *Registry, t *Turn) {
		delete(r.turns, e.id)
		r.publish(TypeTurnEnded, t, "")
	})
}

// locked runs fn with the registry locked and the entry's turn, if e is
// an entry and its turn has not ended.
func (e *Entry) locked(fn func(r *Registry, t *Turn)) {
	if e == nil {
		return
	}
	e.r.mu.Lock()
	defer e.r.mu.Unlock()
	if t := e.r.turns[e.id]; t != nil {
		fn(e.r, t)
	}
}

// apply changes t by ev and returns the change's type, or "" when ev
// changes nothing shown.
func (t *Turn) apply(ev *loop.Event, now time.Time) string {
	i := slices.IndexFunc(t.Calls, func(c Call) bool { return c.CallID == ev.CallID })
	switch ev.Event {
	case "round.started":
		t.Round = max(t.Round, ev.Round)
		return TypeRoundStarted
	case "tool.started":
		t.Round = max(t.Round, ev.Round)
		if i >= 0 {
			return ""
		}
		// Not its arguments: as the model wrote them they hold the tool's
		// redact fields in clear, and an admin sees every key's turns.
		t.Calls = append(t.Calls, Call{CallID: ev.CallID, Tool: ev.Name, Status: CallRunning, StartedAt: now})
		return TypeCallRunning
	case "approval.requested":
		if i < 0 {
			t.Calls = append(t.Calls, Call{CallID: ev.CallID, Tool: ev.Name, StartedAt: now})
			i = len(t.Calls) - 1
		}
		c := &t.Calls[i]
		c.Status, c.ActionID, c.ExpiresAt = CallWaiting, ev.ActionID, ev.ExpiresAt
		if len(ev.Arguments) > 0 {
			c.Arguments = clone(ev.Arguments)
		}
		return TypeApprovalWaiting
	case "approval.resolved":
		if i < 0 {
			return ""
		}
		c := &t.Calls[i]
		c.Status, c.ExpiresAt = CallRunning, nil
		if len(ev.Arguments) > 0 {
			c.Arguments = clone(ev.Arguments)
		}
		return TypeApprovalResolved
	case "tool.finished":
		if i < 0 {
			return ""
		}
		t.Calls = slices.Delete(t.Calls, i, i+1)
		return TypeCallFinished
	}
	return ""
}

// clone copies raw JSON the event holds only during the call.
func clone(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return slices.Clone(b)
}

// copyTurn is a copy of t that shares nothing r keeps changing.
func copyTurn(t *Turn) *Turn {
	c := *t
	c.Calls = slices.Clone(t.Calls)
	return &c
}
