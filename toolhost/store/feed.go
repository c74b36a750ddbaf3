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
// ([ChangeFeed.Subscribe]). It says only what to look at again: the record is
// the truth, so a subscriber re-reads it rather than trusting a copy.
type Change struct {
	Kind ChangeKind
	ID   string
}

// Hub fans changes out to subscribers, each on a goroutine of its own, so
// that a writer never waits for a subscriber, and a subscriber may call
// back into the store (or take locks a writer holds) without deadlock.
// Each subscriber hears changes in the order they were first published.
// Backends embed one; the zero value is ready to use.
//
// A subscriber's queue is bounded, since one may be slow (it re-reads a
// record per change, and may wait seconds for a database) while writers
// go on. A change already waiting in its queue is not queued again: the
// subscriber re-reads the record when it gets to it, so it sees the later
// change too. A queue that would grow past [MaxPendingChanges] is dropped
// for one [ChangeResync], which says to re-read everything; so does any
// resync, and while one waits, other changes add nothing to it.
type Hub struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	closed bool
}

// MaxPendingChanges bounds the changes waiting for one subscriber. A few
// thousand ids are kilobytes, and far more than a subscriber keeping up
// ever has waiting; beyond it, re-reading everything costs less than
// catching up one by one.
const MaxPendingChanges = 4096

type subscriber struct {
	f    func(Change)
	mu   sync.Mutex
	q    pending
	wake chan struct{}
	done chan struct{}
	gone chan struct{}
}

// pending is a subscriber's queue: changes in the order first published,
// each at most once.
type pending struct {
	queue []Change
	set   map[Change]struct{}
}

// add queues c unless it waits already, collapsing the queue into one
// resync for a resync or an overflow.
func (p *pending) add(c Change) {
	if _, waiting := p.set[c]; waiting || p.resyncing() {
		return
	}
	if c.Kind == ChangeResync || len(p.queue) >= MaxPendingChanges {
		// Fresh, not reused: the dropped queue's memory goes with it.
		p.queue, p.set = []Change{{Kind: ChangeResync}}, nil
		return
	}
	if p.set == nil {
		p.set = map[Change]struct{}{}
	}
	p.set[c] = struct{}{}
	p.queue = append(p.queue, c)
}

// resyncing reports a resync waiting: it covers every change until the
// subscriber gets it.
func (p *pending) resyncing() bool {
	return len(p.queue) == 1 && p.queue[0].Kind == ChangeResync
}

// next takes the oldest change off the queue.
func (p *pending) next() (Change, bool) {
	if len(p.queue) == 0 {
		return Change{}, false
	}
	c := p.queue[0]
	p.queue[0] = Change{} // the id's string is not kept alive by the array
	p.queue = p.queue[1:]
	if len(p.queue) == 0 {
		p.queue = nil // the array goes, rather than creep forward
	}
	delete(p.set, c)
	return c, true
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
		s.q.add(c)
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
		// One change at a time, not the queue at once: what is
		// published meanwhile merges with what still waits.
		for {
			select {
			case <-s.done:
				return
			default:
			}
			s.mu.Lock()
			c, ok := s.q.next()
			s.mu.Unlock()
			if !ok {
				break
			}
			s.f(c)
		}
	}
}

// ChangeFeed tells every process sharing the data what changed.
type ChangeFeed interface {
	// Subscribe calls f with every change of actions, finished calls,
	// runtime tools and runtime keys made through any store sharing this
	// one's data, this one included, until stop (see [Hub]). A change
	// published again before f got it is heard once. A
	// [ChangeResync] says changes may have been missed (also when f fell
	// too far behind): re-read everything kept. Delivery is prompt (PostgreSQL: LISTEN/NOTIFY,
	// well under 100 ms) but not a guarantee; the rows are the truth.
	Subscribe(f func(Change)) (stop func())
}
