package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

// runtimeKey is a key named name whose secret is "sk-" and name, with
// times an hour back: only its hash is given to the store.
func runtimeKey(name string) store.RuntimeKey {
	sum := sha256.Sum256([]byte("sk-" + name))
	created := now().Add(-time.Hour)
	return store.RuntimeKey{
		Name:      name,
		Hash:      hex.EncodeToString(sum[:]),
		Models:    []string{"gpt-*", "qwen3"},
		Tools:     nil, // all
		Limits:    store.KeyLimits{RequestsPerMinute: 60, TokensPerMinute: 10000, ConcurrentTurns: 2},
		CreatedAt: created,
		UpdatedAt: created,
	}
}

// wantKeys checks that Keys lists want, in order.
func wantKeys(t *testing.T, s store.Store, what string, want []store.RuntimeKey) {
	t.Helper()
	got, err := s.Keys(t.Context())
	must(t, what, err)
	same(t, what, want, got)
}

// wantNoFailures checks that the caller's mistakes made so far counted as
// no storage failure.
func wantNoFailures(t *testing.T, s store.Store) {
	t.Helper()
	if n := s.WriteFailures(); n != 0 {
		t.Errorf("WriteFailures = %d after the caller's mistakes, want 0", n)
	}
	if err := s.Ready(); err != nil {
		t.Errorf("Ready after the caller's mistakes = %v, want nil", err)
	}
}

func testKeys(t *testing.T, open opener) {
	testKeyRecords(t, open)
	testKeyMistakes(t, open)
	testKeyExpiry(t, open)
	testKeyRaces(t, open)
}

// testKeyRecords checks what a key holds as written, listed and updated.
func testKeyRecords(t *testing.T, open opener) {
	parallel(t, open, "CRUD", func(t *testing.T, s store.Store) {
		ctx := t.Context()
		a := runtimeKey("a_key")
		b := runtimeKey("b_key")
		b.Models, b.Tools = nil, []string{} // every model, no tool
		for _, k := range []store.RuntimeKey{b, a} {
			must(t, "CreateKey", s.CreateKey(ctx, k))
		}
		wantKeys(t, s, "Keys, by name", []store.RuntimeKey{a, b})

		// The update replaces scopes, limits and expiry, whatever it says
		// of the hash and the times.
		expires := now().Add(time.Hour)
		upd := store.RuntimeKey{
			Name:      "b_key",
			Hash:      strings.Repeat("0", 64),
			Models:    []string{}, // no model
			Tools:     nil,        // every tool
			Limits:    store.KeyLimits{ConcurrentTurns: 1},
			ExpiresAt: &expires,
		}
		got, err := s.UpdateKey(ctx, upd)
		must(t, "UpdateKey", err)
		if !recent(got.UpdatedAt) {
			t.Errorf("UpdatedAt = %v, want now", got.UpdatedAt)
		}
		want := upd
		want.Hash, want.CreatedAt, want.UpdatedAt = b.Hash, b.CreatedAt, got.UpdatedAt
		same(t, "updated key", want, got)
		if got.Models == nil || got.Tools != nil {
			t.Errorf("updated scopes: models %#v, tools %#v; want empty (none) and nil (all)", got.Models, got.Tools)
		}
		wantKeys(t, s, "Keys after update", []store.RuntimeKey{a, want})

		for _, existed := range []bool{true, false} {
			if ok, err := s.DeleteKey(ctx, "a_key"); err != nil || ok != existed {
				t.Errorf("DeleteKey(a_key) = %v, %v; want %v", ok, err, existed)
			}
		}
		_, err = s.UpdateKey(ctx, a)
		wantErr(t, "UpdateKey after delete", err, store.ErrNotFound)
		wantKeys(t, s, "Keys after delete", []store.RuntimeKey{want})
		// A deleted name is free again.
		must(t, "CreateKey again", s.CreateKey(ctx, a))
		wantKeys(t, s, "Keys after creating again", []store.RuntimeKey{a, want})
	})
	parallel(t, open, "NilAndEmptyScopes", func(t *testing.T, s store.Store) {
		// nil means every model or tool, an empty list none: mixing them
		// up would open a key to every tool.
		for i, tc := range []struct{ models, tools []string }{
			{nil, nil}, {[]string{}, []string{}}, {nil, []string{}}, {[]string{}, nil},
		} {
			k := runtimeKey(fmt.Sprintf("key_%d", i))
			k.Models, k.Tools = tc.models, tc.tools
			must(t, "CreateKey", s.CreateKey(t.Context(), k))
		}
		got, err := s.Keys(t.Context())
		must(t, "Keys", err)
		if len(got) != 4 {
			t.Fatalf("Keys = %d keys, want 4", len(got))
		}
		for i, nilModels := range []bool{true, false, true, false} {
			nilTools := i%3 == 0 // key_0 and key_3
			if (got[i].Models == nil) != nilModels || (got[i].Tools == nil) != nilTools {
				t.Errorf("%s: models %#v, tools %#v; want nil models %v, nil tools %v",
					got[i].Name, got[i].Models, got[i].Tools, nilModels, nilTools)
			}
		}
	})
	parallel(t, open, "NewSetsTimes", func(t *testing.T, s store.Store) {
		k := runtimeKey("k")
		k.CreatedAt, k.UpdatedAt = time.Time{}, time.Time{}
		must(t, "CreateKey", s.CreateKey(t.Context(), k))
		got, err := s.Keys(t.Context())
		if err != nil || len(got) != 1 || !recent(got[0].CreatedAt) || !recent(got[0].UpdatedAt) {
			t.Errorf("Keys = %+v, %v; want one key created and updated now", got, err)
		}
	})
}

// testKeyMistakes checks that a caller's mistakes are refused as such.
func testKeyMistakes(t *testing.T, open opener) {
	parallel(t, open, "Duplicate", func(t *testing.T, s store.Store) {
		k := runtimeKey("k")
		must(t, "CreateKey", s.CreateKey(t.Context(), k))
		other := runtimeKey("other")
		other.Name = "k"
		wantErr(t, "second CreateKey", s.CreateKey(t.Context(), other), store.ErrExists)
		wantKeys(t, s, "Keys", []store.RuntimeKey{k}) // the first hash stays
		wantNoFailures(t, s)
	})
	parallel(t, open, "Missing", func(t *testing.T, s store.Store) {
		_, err := s.UpdateKey(t.Context(), runtimeKey("k"))
		wantErr(t, "UpdateKey of a missing key", err, store.ErrNotFound)
		if ok, err := s.DeleteKey(t.Context(), "k"); err != nil || ok {
			t.Errorf("DeleteKey of a missing key = %v, %v; want false", ok, err)
		}
		wantKeys(t, s, "Keys", nil) // the update created nothing
		wantNoFailures(t, s)
	})
	parallel(t, open, "InvalidHash", func(t *testing.T, s store.Store) {
		good := runtimeKey("k").Hash
		for _, h := range []string{
			"", "sk-k", // a key instead of its hash must not be stored
			strings.ToUpper(good), good[:63], good + "0", "sha256:" + good,
			strings.Repeat("g", 64), good[:62] + "\x00\x00",
		} {
			k := runtimeKey("k")
			k.Hash = h
			wantErr(t, fmt.Sprintf("CreateKey(hash %.20q)", h), s.CreateKey(t.Context(), k), store.ErrInvalidKey)
		}
		wantKeys(t, s, "Keys", nil)
		wantNoFailures(t, s)
	})
}

// testKeyExpiry checks that a key expires when it says.
func testKeyExpiry(t *testing.T, open opener) {
	parallel(t, open, "Expiry", func(t *testing.T, s store.Store) {
		ctx := t.Context()
		past, future := now().Add(-time.Minute), now().Add(time.Hour)
		gone := runtimeKey("gone")
		gone.ExpiresAt = &past
		live := runtimeKey("live")
		live.ExpiresAt = &future
		for _, k := range []store.RuntimeKey{gone, live} {
			must(t, "CreateKey", s.CreateKey(ctx, k))
		}
		wantKeys(t, s, "Keys", []store.RuntimeKey{live})
		// An expired key is no key: updates miss it, its name is free.
		_, err := s.UpdateKey(ctx, gone)
		wantErr(t, "UpdateKey of an expired key", err, store.ErrNotFound)
		if ok, err := s.DeleteKey(ctx, "gone"); err != nil || ok {
			t.Errorf("DeleteKey of an expired key = %v, %v; want false", ok, err)
		}
		again := runtimeKey("gone")
		must(t, "CreateKey over an expired key", s.CreateKey(ctx, again))
		wantKeys(t, s, "Keys", []store.RuntimeKey{again, live})

		// An update may end a key's life, or make it last.
		upd := live
		upd.ExpiresAt = &past
		_, err = s.UpdateKey(ctx, upd)
		must(t, "UpdateKey expiring a key", err)
		upd = again
		upd.ExpiresAt = nil
		upd, err = s.UpdateKey(ctx, upd)
		must(t, "UpdateKey clearing an expiry", err)
		wantKeys(t, s, "Keys after the updates", []store.RuntimeKey{upd})
	})
	parallel(t, open, "ExpiresOnTime", func(t *testing.T, s store.Store) {
		// A key works until ExpiresAt and not after, to the clock: a
		// backend whose own expiry counts whole seconds must neither
		// round it down (dropping the key early) nor up. ExpiresAt lies
		// late in its second so that both would show.
		at := now().Truncate(time.Second).Add(2*time.Second + 900*time.Millisecond)
		k := runtimeKey("k")
		k.ExpiresAt = &at
		must(t, "CreateKey", s.CreateKey(t.Context(), k))
		time.Sleep(time.Until(at.Add(-450 * time.Millisecond)))
		wantKeys(t, s, "Keys shortly before ExpiresAt", []store.RuntimeKey{k})
		time.Sleep(time.Until(at))
		wantKeys(t, s, "Keys at ExpiresAt", nil)
		_, err := s.UpdateKey(t.Context(), k)
		wantErr(t, "UpdateKey at ExpiresAt", err, store.ErrNotFound)
	})
}

// testKeyRaces checks that concurrent writes of one key keep it whole.
func testKeyRaces(t *testing.T, open opener) {
	parallel(t, open, "CreateRace", func(t *testing.T, s store.Store) {
		// Of n creates of one name one wins; the others get ErrExists.
		const n = 16
		errs := make([]error, n)
		keys := make([]store.RuntimeKey, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			keys[i] = runtimeKey(fmt.Sprintf("key_%02d", i))
			keys[i].Name = "k"
			wg.Go(func() {
				<-start
				errs[i] = s.CreateKey(t.Context(), keys[i])
			})
		}
		close(start)
		wg.Wait()
		var winner []store.RuntimeKey
		for i, err := range errs {
			switch {
			case err == nil:
				winner = append(winner, keys[i])
			case !errors.Is(err, store.ErrExists):
				t.Errorf("create %d: %v, want nil or ErrExists", i, err)
			}
		}
		if len(winner) != 1 {
			t.Fatalf("%d creates won, want exactly 1", len(winner))
		}
		wantKeys(t, s, "Keys", winner)
	})
	parallel(t, open, "UpdateRace", func(t *testing.T, s store.Store) {
		// Concurrent updates each replace the whole record: the stored
		// one is one of them, never a mix, and keeps hash and CreatedAt.
		const n = 16
		k := runtimeKey("k")
		must(t, "CreateKey", s.CreateKey(t.Context(), k))
		results := make([]store.RuntimeKey, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				upd := store.RuntimeKey{Name: "k", Models: []string{fmt.Sprintf("m%02d", i)}, Limits: store.KeyLimits{RequestsPerMinute: i}}
				got, err := s.UpdateKey(t.Context(), upd)
				if err != nil {
					t.Errorf("update %d: %v", i, err)
				}
				results[i] = got
			})
		}
		close(start)
		wg.Wait()
		got, err := s.Keys(t.Context())
		if err != nil || len(got) != 1 {
			t.Fatalf("Keys = %+v, %v; want one key", got, err)
		}
		i := got[0].Limits.RequestsPerMinute
		if i < 0 || i >= n {
			t.Fatalf("stored limits %+v are no update's", got[0].Limits)
		}
		same(t, "stored key", results[i], got[0])
		if got[0].Hash != k.Hash || !got[0].CreatedAt.Equal(k.CreatedAt) {
			t.Errorf("after updates: hash %s, created %v; want %s, %v", got[0].Hash, got[0].CreatedAt, k.Hash, k.CreatedAt)
		}
	})
}

// runtimeKeyNamed is a valid key under any name, for the invalid ones.
func runtimeKeyNamed(name string) store.RuntimeKey {
	k := runtimeKey("k")
	k.Name = name
	return k
}
