package keys

import (
	"github.com/toolstream/toolstream/toolhost/store"
)

// SyncRuntime makes the table's runtime keys those load returns — the
// store's, after another replica created, changed or deleted one. A key
// no longer stored is revoked (turns holding it stop at their next
// round); a new or changed one is put. load runs under the table's lock,
// so a change this process makes meanwhile is either read or applied
// after: a key revoked here is never put back by a read from before its
// deletion. It reports how many keys changed.
func (t *Table) SyncRuntime(load func() ([]store.RuntimeKey, error)) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	recs, err := load()
	if err != nil {
		return 0, err
	}
	changed := 0
	seen := make(map[string]bool, len(recs))
	for _, r := range recs {
		seen[r.Name] = true
		if d, ok := t.revoking[r.Name]; ok && sameDigest(d, r) {
			continue // deleted here; the store's delete is on its way
		}
		if e, ok := t.runtime[r.Name]; ok && sameRecord(e, r) {
			continue
		}
		t.putRuntime(r)
		changed++
	}
	for name, e := range t.runtime {
		if !seen[name] {
			e.k.revoked.Store(true)
			delete(t.runtime, name)
			changed++
		}
	}
	for name := range t.revoking {
		if !seen[name] {
			delete(t.revoking, name) // the delete reached the store
		}
	}
	if changed > 0 {
		t.publish()
	}
	return changed, nil
}

func sameDigest(d Digest, r store.RuntimeKey) bool {
	rd, ok := DigestOf("sha256:" + r.Hash)
	return ok && rd == d
}

// sameRecord reports whether e was made from r as it stands: a key's
// hash never changes, and every update moves UpdatedAt.
func sameRecord(e entry, r store.RuntimeKey) bool {
	return sameDigest(e.d, r) && e.k.UpdatedAt.Equal(r.UpdatedAt) && e.k.CreatedAt.Equal(r.CreatedAt)
}
