package mcpserve

import (
	"encoding/json"
	"net/http"
	"sync"
)

// sessions caps the sessions /mcp keeps, per client key and in all. The
// SDK keeps each session (and its goroutines) until it is deleted or
// idle for SessionTimeout; clients that leave without a DELETE — the
// probe left 3,000, holding 3,178 goroutines and 40 MB for an hour —
// would otherwise hold them all that time.
//
// A new session past a cap takes the place of the session that has been
// idle longest (no request in flight, no GET stream open): its client, if
// it ever comes back, gets 404 and starts a new session, as the
// transport asks of it (the same as after SessionTimeout), whereas a
// refusal would shut out a live client while abandoned sessions hold
// every place. Only when every session is busy is the new one refused.
//
// It keeps what the SDK does not tell: whose each session is, when a
// request last used it and how many use it now.
type sessions struct {
	max, perKey int

	mu   sync.Mutex
	byID map[string]*session
	// tick orders uses: a session's last is the tick of its last use, so
	// the lowest is the one idle longest (a clock may not move between
	// two uses).
	tick uint64
	// pending are sessions being opened (an initialize in flight), by
	// key name, counted against the caps before they exist.
	pending    map[string]int
	pendingAll int
	// listens counts the open subscriptions/listen streams of the
	// stateless revision, by key name: each holds a place as a session
	// does.
	listens    map[string]int
	listensAll int
}

type session struct {
	id    string
	scope *scope
	last  uint64 // sessions.tick at its last use
	busy  int    // requests in flight, GET streams included
}

func newSessions(max, perKey int) *sessions {
	return &sessions{max: max, perKey: perKey, byID: map[string]*session{}, pending: map[string]int{}, listens: map[string]int{}}
}

// errTooMany is a session refused because every place under a cap is
// held by a busy session; perKey tells which cap.
type errTooMany struct{ perKey bool }

func (e errTooMany) Error() string {
	if e.perKey {
		return "too many MCP sessions for this API key, each with a request in flight; close one (DELETE /mcp) or try again later"
	}
	return "too many MCP sessions, each with a request in flight; try again later"
}

// reserve makes room for a session sc is about to open: it evicts the
// longest-idle session of sc's key past the per-key cap, and the
// longest-idle of all past the overall cap. done must be called once the
// initialize is answered, with the new session's id ("" if none was
// opened).
func (ss *sessions) reserve(sc *scope) (done func(id string), err error) {
	var evict []*session
	ss.mu.Lock()
	if ss.countOf(sc) >= ss.perKey {
		ss.prune(sc)
	}
	if ss.countOf(sc) >= ss.perKey {
		victim := ss.idlest(sc)
		if victim == nil {
			ss.mu.Unlock()
			return nil, errTooMany{perKey: true}
		}
		evict = append(evict, victim)
		delete(ss.byID, victim.id)
	}
	if len(ss.byID)+ss.pendingAll+ss.listensAll >= ss.max {
		ss.prune(nil)
	}
	if len(ss.byID)+ss.pendingAll+ss.listensAll >= ss.max {
		victim := ss.idlest(nil)
		if victim == nil {
			for _, s := range evict {
				ss.byID[s.id] = s // kept: nothing is opened in its place
			}
			ss.mu.Unlock()
			return nil, errTooMany{}
		}
		evict = append(evict, victim)
		delete(ss.byID, victim.id)
	}
	ss.pending[sc.name]++
	ss.pendingAll++
	ss.mu.Unlock()

	for _, s := range evict {
		s.scope.close(s.id)
	}
	return func(id string) {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		ss.pending[sc.name]--
		ss.pendingAll--
		if id != "" {
			ss.tick++
			ss.byID[id] = &session{id: id, scope: sc, last: ss.tick}
		}
	}, nil
}

// listen holds a place for a subscriptions/listen stream of sc's key
// while it is open; end gives it back. A stream is always busy, so past
// a cap a session idle longest makes room, and with none idle the
// stream is refused.
func (ss *sessions) listen(sc *scope) (end func(), err error) {
	done, err := ss.reserve(sc)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	ss.listens[sc.name]++
	ss.listensAll++
	ss.mu.Unlock()
	done("")
	return func() {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		ss.listens[sc.name]--
		ss.listensAll--
	}, nil
}

// refuseSession answers a request for a session or stream that no cap
// has room for: 429 when the key's own are all busy, 503 when all are.
func refuseSession(w http.ResponseWriter, id json.RawMessage, err error) {
	status := http.StatusServiceUnavailable
	if err.(errTooMany).perKey {
		status = http.StatusTooManyRequests
	}
	w.Header().Set("Retry-After", "1")
	writeRPCError(w, status, id, err.Error())
}

// use marks session id busy while a request uses it; the returned
// function ends the use.
func (ss *sessions) use(id string) (end func()) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.byID[id]
	if s == nil {
		return func() {}
	}
	s.busy++
	return func() {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		s.busy--
		ss.tick++
		s.last = ss.tick
	}
}

// countOf is how many sessions sc's key holds or is opening. The caller
// holds ss.mu.
func (ss *sessions) countOf(sc *scope) int {
	n := ss.pending[sc.name] + ss.listens[sc.name]
	for _, s := range ss.byID {
		if s.scope == sc {
			n++
		}
	}
	return n
}

// idlest is the session idle longest, of sc's key or (nil) of any; nil
// when every one is busy. The caller holds ss.mu.
func (ss *sessions) idlest(sc *scope) *session {
	var best *session
	for _, s := range ss.byID {
		if s.busy > 0 || sc != nil && s.scope != sc {
			continue
		}
		if best == nil || s.last < best.last {
			best = s
		}
	}
	return best
}

// prune forgets the sessions the SDK closed on its own (SessionTimeout,
// DELETE), of sc's key or (nil) of all. The caller holds ss.mu.
func (ss *sessions) prune(sc *scope) {
	live := map[*scope]map[string]bool{}
	for id, s := range ss.byID {
		if sc != nil && s.scope != sc {
			continue
		}
		ids := live[s.scope]
		if ids == nil {
			ids = s.scope.sessionIDs()
			live[s.scope] = ids
		}
		if !ids[id] {
			delete(ss.byID, id)
		}
	}
}

// registering hands the new session's id to done before the first byte
// of the initialize answer goes out. Once the client has the id it may
// use the session at once (its GET stream, a tools/call); a session
// registered only after the answer was sent could take such a request
// unseen, counted idle while it is busy, and be evicted from under it.
type registering struct {
	http.ResponseWriter
	done func(id string)
	once sync.Once
}

func (w *registering) register() {
	w.once.Do(func() { w.done(w.Header().Get("Mcp-Session-Id")) })
}

func (w *registering) WriteHeader(code int) {
	w.register()
	w.ResponseWriter.WriteHeader(code)
}

func (w *registering) Write(b []byte) (int, error) {
	w.register()
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's Flush.
func (w *registering) Unwrap() http.ResponseWriter { return w.ResponseWriter }
