package live

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// ErrTooManySubs is returned by [Registry.Subscribe] past [MaxSubs].
var ErrTooManySubs = errors.New("live: too many readers")

// Sub is one reader of the feed. Read its messages from C; when Resync
// fires, the reader fell behind: call [Sub.Resync] for a fresh snapshot
// instead of what it lost.
type Sub struct {
	r *Registry
	// c holds encoded changes in order; resync has a token when c
	// overflowed and was emptied.
	c      chan []byte
	resync chan struct{}
}

// Subscribe starts a reader and returns it with its first message, the
// snapshot of every turn now: every change after the snapshot arrives on
// C. Close it when done.
func (r *Registry) Subscribe() (*Sub, []byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.subs) >= MaxSubs {
		return nil, nil, ErrTooManySubs
	}
	s := &Sub{r: r, c: make(chan []byte, queueLen), resync: make(chan struct{}, 1)}
	r.subs[s] = struct{}{}
	return s, r.snapshot(), nil
}

// C delivers the changes, each one encoded [Change].
func (s *Sub) C() <-chan []byte { return s.c }

// Lagged fires when the reader fell behind and lost changes.
func (s *Sub) Lagged() <-chan struct{} { return s.resync }

// Resync empties the queue and returns a snapshot of every turn now, in
// one step with the registry locked: every message on C after it is
// newer than the snapshot.
func (s *Sub) Resync() []byte {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	for len(s.c) > 0 {
		<-s.c
	}
	return s.r.snapshot()
}

// Close stops the reader's feed.
func (s *Sub) Close() {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	delete(s.r.subs, s)
}

// snapshot encodes every turn, oldest first. r.mu is held.
func (r *Registry) snapshot() []byte {
	turns := make([]Turn, 0, len(r.turns))
	for _, t := range r.turns {
		turns = append(turns, *copyTurn(t))
	}
	slices.SortFunc(turns, func(a, b Turn) int {
		if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	b, _ := json.Marshal(Snapshot{Type: TypeSnapshot, Turns: turns})
	return b
}

// publish sends a change of t to every reader, without waiting: a reader
// whose queue is full loses it and is told to resync. Nothing is encoded
// when nobody reads. r.mu is held.
func (r *Registry) publish(typ string, t *Turn, callID string) {
	if len(r.subs) == 0 {
		return
	}
	b, _ := json.Marshal(Change{Type: typ, Turn: t, CallID: callID})
	for s := range r.subs {
		select {
		case s.c <- b:
			continue
		default:
		}
		select {
		case s.resync <- struct{}{}:
		default: // told already
		}
	}
}
