package store

import "sync"

// ChangeKind says what a [Change] is about.
type ChangeKind uint8

// Kinds of change. Their values are part of the PostgreSQL backend's
// notification payload: append, never renumber.
const (
	// ChangeResync says changes may have been missed (a lost connection
	// to a shared database, or a periodic re-read): whoever keeps a copy
	// of stored state reads it all again. ID is empty.
	ChangeResync ChangeKind = iota
	// ChangeAction: an action was created or decided; ID is its id.
	ChangeAction
	// ChangeCall: a call finished or was resolved; ID is its audit id.
	ChangeCall
	// ChangeTools: a runtime tool was put or deleted; ID is its name.
	ChangeTools
	// ChangeKeys: a runtime key was created, updated or deleted; ID is
	// its name.
	ChangeKeys
)

var kindNames = [...]string{"resync", "action", "call", "tools", "keys"}

func (k ChangeKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Change is one change of stored state, told to the feed's subscribers
// ([Store.Subscribe]). It says only what to look at again: the record is
// the truth, so a subscriber re-reads it rather than trusting a copy.
type Change struct {
	Kind ChangeKind
	ID   string
}

// Hub fans changes out to subscribers, each on a goroutine of its own, so
// that a writer never waits for a subscriber, and a subscriber may call
// back into the store (or take locks a writer holds) without deadlock.
// Each subscriber hears changes in the order they were published.
// Backends embed one; the zero value is ready to use.
type Hub struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	closed bool
}

type subscriber struct {
	f     func(Change)
	mu    sync.Mutex
	queue []Change
	wake  chan struct{}
	done  chan struct{}
	gone  chan struct{}
}

// Subscribe calls f with every change published until stop is called or
// the hub closes. f runs on a goroutine of its own, one change at a time.
// stop waits for a running f to return and never calls f again.
func (h *Hub) Subscribe(f func(Change)) (stop func()) {
	s := &subscriber{f: f, wake: make(chan struct{}, 1), done: make(chan struct{}), gone: make(chan struct{})}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return func() {}
	}
	if h.subs == nil {
		h.subs = map[*subscriber]struct{}{}
	}
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	go s.run()
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			_, mine := h.subs[s] // else Close took it, and closes done
			delete(h.subs, s)
			h.mu.Unlock()
			if mine {
				close(s.done)
			}
			<-s.gone
		})
	}
}

// Publish tells every subscriber of c. It never blocks on a subscriber.
func (h *Hub) Publish(c Change) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		s.mu.Lock()
		s.queue = append(s.queue, c)
		s.mu.Unlock()
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// Close stops every subscriber and waits for them; later Subscribe calls
// get a stop that does nothing and hear nothing.
func (h *Hub) Close() {
	h.mu.Lock()
	h.closed = true
	subs := h.subs
	h.subs = nil
	h.mu.Unlock()
	for s := range subs {
		close(s.done)
		<-s.gone
	}
}

func (s *subscriber) run() {
	defer close(s.gone)
	for {
		select {
		case <-s.done:
			return
		case <-s.wake:
		}
		s.mu.Lock()
		batch := s.queue
		s.queue = nil
		s.mu.Unlock()
		for _, c := range batch {
			select {
			case <-s.done:
				return
			default:
			}
			s.f(c)
		}
	}
}
