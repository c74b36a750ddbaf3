package keys

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

func stored(name, secret string, updated time.Time, rpm int) store.RuntimeKey {
	created := time.Unix(1_800_000_000, 0)
	return store.RuntimeKey{Name: name, Hash: hexOf(secret), CreatedAt: created, UpdatedAt: updated,
		Limits: store.KeyLimits{RequestsPerMinute: rpm}}
}

func loaded(recs ...store.RuntimeKey) func() ([]store.RuntimeKey, error) {
	return func() ([]store.RuntimeKey, error) { return recs, nil }
}

// TestSyncRuntime: the table follows the store — keys created, patched
// and deleted by another replica appear, change and are refused here; a
// key this replica revoked is not put back by a read from before its
// deletion reached the store, but a new key under its name is.
func TestSyncRuntime(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	tab := NewTable(nil, []store.RuntimeKey{stored("alice", "sk-a", t0, 0)}, nil)
	alice, _ := tab.Lookup("sk-a")

	sync := func(want int, recs ...store.RuntimeKey) {
		t.Helper()
		if n, err := tab.SyncRuntime(loaded(recs...)); err != nil || n != want {
			t.Fatalf("SyncRuntime = %d, %v; want %d changes", n, err, want)
		}
	}
	// Nothing changed: the same Key stays.
	sync(0, stored("alice", "sk-a", t0, 0))
	if k, _ := tab.Lookup("sk-a"); k != alice {
		t.Error("an unchanged record replaced the key")
	}
	// bob created elsewhere, alice patched elsewhere.
	sync(2, stored("alice", "sk-a", t0.Add(time.Minute), 5), stored("bob", "sk-b", t0, 0))
	if k, ok := tab.Lookup("sk-a"); !ok || k.Limits.RequestsPerMinute != 5 {
		t.Errorf("alice after a patch = %+v, %v; want 5 rpm", k, ok)
	}
	if _, ok := tab.Lookup("sk-b"); !ok {
		t.Error("bob, created elsewhere, is refused")
	}
	// bob deleted elsewhere: refused, and a turn holding him stops.
	bob, _ := tab.Lookup("sk-b")
	sync(1, stored("alice", "sk-a", t0.Add(time.Minute), 5))
	if _, ok := tab.Lookup("sk-b"); ok || !bob.revoked.Load() {
		t.Errorf("bob after a delete elsewhere: found %v, revoked %v; want refused and revoked", ok, bob.revoked.Load())
	}
	// alice revoked here while a read from before the store's delete is
	// applied: she stays revoked.
	tab.Revoke("alice")
	sync(0, stored("alice", "sk-a", t0.Add(time.Minute), 5))
	if _, ok := tab.Lookup("sk-a"); ok {
		t.Error("a stale read put a revoked key back")
	}
	// A new alice (another key) created elsewhere is taken.
	sync(1, stored("alice", "sk-a2", t0.Add(2*time.Minute), 0))
	if _, ok := tab.Lookup("sk-a2"); !ok {
		t.Error("a new key under a revoked name is refused")
	}
	if _, ok := tab.Lookup("sk-a"); ok {
		t.Error("the revoked alice works again")
	}
}
