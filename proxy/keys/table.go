package keys

import (
	"crypto/sha256"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Table holds every client key the proxy accepts. Lookups read an
// immutable snapshot without locking; changes (a reload, an admin's
// create, patch or revoke) build the next one.
type Table struct {
	mu      sync.Mutex // serialises changes
	config  []entry
	runtime map[string]entry
	// revoking are runtime keys revoked here whose deletion the store may
	// not have yet, with their digests: SyncRuntime does not put them
	// back (a new key under the same name has another digest).
	revoking map[string]Digest
	// limiters outlive the Keys that use them (see Key.limiter).
	limiters map[string]*Limiter
	snap     atomic.Pointer[snapshot]
	now      func() time.Time
}

type entry struct {
	d Digest
	k *Key
}

type snapshot struct {
	byDigest map[Digest]*Key
	byName   map[string]*Key
	// fromConfig names the keys of auth.keys, which the admin routes
	// show but do not change.
	fromConfig map[string]bool
}

// NewTable builds the table of the auth.keys entries and the stored
// runtime keys. now is the clock for expiry and limits; nil uses
// time.Now.
func NewTable(entries []config.ClientKey, runtime []store.RuntimeKey, now func() time.Time) *Table {
	if now == nil {
		now = time.Now
	}
	t := &Table{runtime: map[string]entry{}, revoking: map[string]Digest{}, limiters: map[string]*Limiter{}, now: now}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.setConfig(entries)
	for _, r := range runtime {
		t.putRuntime(r)
	}
	t.publish()
	return t
}

// Now is the table's clock.
func (t *Table) Now() time.Time { return t.now() }

// SetConfig replaces the keys of auth.keys (a reload). A key no longer
// listed is revoked: turns that hold it stop at their next round.
func (t *Table) SetConfig(entries []config.ClientKey) {
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.config
	t.setConfig(entries)
	kept := map[Digest]bool{}
	for _, e := range t.config {
		kept[e.d] = true
	}
	for _, e := range old {
		if !kept[e.d] {
			e.k.revoked.Store(true)
		}
	}
	t.publish()
}

func (t *Table) setConfig(entries []config.ClientKey) {
	t.config = t.config[:0:0]
	for _, e := range entries {
		d, ok := DigestOf(e.Key.Value())
		if e.Key == "" || !ok {
			continue // validation refuses these; an unset ${VAR:-} is no key
		}
		k := fromConfig(e, d)
		k.limiter = t.limiterFor(k.Name, k.Limits)
		t.config = append(t.config, entry{d, k})
	}
}

// PutRuntime adds a runtime key, or replaces one of the same name (a
// PATCH): turns that hold the old Key finish with its scope.
func (t *Table) PutRuntime(r store.RuntimeKey) *Key {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := t.putRuntime(r)
	delete(t.revoking, r.Name)
	t.publish()
	return k
}

func (t *Table) putRuntime(r store.RuntimeKey) *Key {
	var d Digest
	if b, ok := DigestOf("sha256:" + r.Hash); ok {
		d = b
	}
	k := fromRecord(r)
	k.limiter = t.limiterFor(k.Name, k.Limits)
	t.runtime[r.Name] = entry{d, k}
	return k
}

// Revoke removes a runtime key at once: the next request with it gets
// 401, and a turn that holds it stops at its next round. It reports
// whether there was such a key.
func (t *Table) Revoke(name string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.runtime[name]
	if !ok {
		return false
	}
	e.k.revoked.Store(true)
	delete(t.runtime, name)
	t.revoking[name] = e.d
	t.publish()
	return true
}

// limiterFor returns the limiter kept for name, set to l; nil (and the
// kept one dropped) when l has no limits.
func (t *Table) limiterFor(name string, l config.Limits) *Limiter {
	if !l.Any() {
		delete(t.limiters, name)
		return nil
	}
	lim := t.limiters[name]
	if lim == nil {
		lim = newLimiter(l, t.now())
		t.limiters[name] = lim
		return lim
	}
	lim.SetLimits(l, t.now())
	return lim
}

// publish makes the current entries the snapshot lookups read, and drops
// the limiters of names no key has any more.
func (t *Table) publish() {
	s := &snapshot{
		byDigest:   make(map[Digest]*Key, len(t.config)+len(t.runtime)),
		byName:     make(map[string]*Key, len(t.config)+len(t.runtime)),
		fromConfig: make(map[string]bool, len(t.config)),
	}
	for _, e := range t.runtime {
		s.byDigest[e.d], s.byName[e.k.Name] = e.k, e.k
	}
	for _, e := range t.config { // the file wins a clash of names
		s.byDigest[e.d], s.byName[e.k.Name] = e.k, e.k
		s.fromConfig[e.k.Name] = true
	}
	for name := range t.limiters {
		if s.byName[name] == nil {
			delete(t.limiters, name)
		}
	}
	t.snap.Store(s)
}

// Open reports whether the proxy has no client keys at all: then anyone
// who reaches it may call it (config validation allowed that only on a
// loopback address or with auth.allow_open). A runtime key closes it.
func (t *Table) Open() bool { return len(t.snap.Load().byDigest) == 0 }

// ClosedByRuntime reports whether the proxy takes client keys only
// because an admin created one at runtime: the file names none, so a
// client that worked before the first POST /admin/keys gets 401s from
// then on, and its 401 should say why.
func (t *Table) ClosedByRuntime() bool {
	s := t.snap.Load()
	return len(s.fromConfig) == 0 && len(s.byDigest) > 0
}

// Lookup finds the live key presented as key. Keys are found by their
// SHA-256, so the key itself is neither kept nor compared byte by byte.
func (t *Table) Lookup(key string) (*Key, bool) {
	k, ok := t.snap.Load().byDigest[sha256.Sum256([]byte(key))]
	if !ok || !k.Live(t.now()) {
		return nil, false
	}
	return k, true
}

// ByName returns the key named name and whether it comes from auth.keys.
func (t *Table) ByName(name string) (k *Key, fromConfig bool, ok bool) {
	s := t.snap.Load()
	k, ok = s.byName[name]
	return k, s.fromConfig[name], ok
}

// All returns every key, auth.keys' first in file order, then the
// runtime keys by name, each with whether it comes from auth.keys.
func (t *Table) All() (keys []*Key, fromConfig []bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.config {
		keys, fromConfig = append(keys, e.k), append(fromConfig, true)
	}
	rt := make([]*Key, 0, len(t.runtime))
	for _, e := range t.runtime {
		rt = append(rt, e.k)
	}
	slices.SortFunc(rt, func(a, b *Key) int { return strings.Compare(a.Name, b.Name) })
	for _, k := range rt {
		keys, fromConfig = append(keys, k), append(fromConfig, false)
	}
	return keys, fromConfig
}
