// Package storetest is the conformance suite of [store.Store]: every
// backend runs it from its own tests, behind [store.Checked], so loop,
// toolhost and proxy can rely on the same behaviour whichever backend a
// deployment picks.
//
// The suite knows nothing of any backend. It needs no clock of its own:
// expiry is tested with records whose StartedAt or CreatedAt lies further
// in the past than their retention, which every backend must treat as
// already expired, and with runtime keys whose ExpiresAt is past. One
// test waits a few seconds for a key's ExpiresAt, to hold a backend that
// expires in whole seconds to the exact time.
package storetest

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/toolhost/store"
)

// Retention is the storage.audit_retention and storage.turn_retention the
// stores given to [Run] must be opened with.
const Retention = time.Hour

// Run runs the suite on the backend open returns, fronted by
// [store.Checked] as every deployment uses it. open returns a new, empty
// backend with both retentions at [Retention]; it should close it in
// t.Cleanup (some tests close it themselves first, and Close twice
// returns nil). Tests run in parallel, each with its own store.
func Run(t *testing.T, open func(t *testing.T) store.Backend) {
	t.Helper()
	checked := func(t *testing.T) store.Store { return store.Checked(open(t)) }
	for _, g := range []struct {
		name string
		run  func(*testing.T, opener)
	}{
		{"Turns", testTurns},
		{"Responses", testResponses},
		{"Modes", testModes},
		{"Calls", testCalls},
		{"CallPages", testCallPages},
		{"Replays", testReplays},
		{"Actions", testActions},
		{"DecideAction", testDecideAction},
		{"ApproveEdited", testApproveEdited},
		{"Tools", testTools},
		{"Keys", testKeys},
		{"Usage", testUsage},
		{"Recover", testRecover},
		{"ResolveStarted", testResolveStarted},
		{"InvalidKey", testInvalidKey},
		{"Lifecycle", testLifecycle},
		{"Feed", testFeed},
	} {
		t.Run(g.name, func(t *testing.T) { g.run(t, checked) })
	}
}

// opener opens a fresh store: the backend Run is given, checked.
type opener = func(t *testing.T) store.Store

// parallel runs fn as a parallel subtest with a fresh store.
func parallel(t *testing.T, open opener, name string, fn func(t *testing.T, s store.Store)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		fn(t, open(t))
	})
}

// now is the current time at the precision every backend keeps
// (PostgreSQL timestamps hold microseconds).
func now() time.Time {
	return time.Now().UTC().Truncate(time.Microsecond)
}

// expiredAt is a time further back than [Retention]: a record started or
// created then is already expired when written.
func expiredAt() time.Time {
	return now().Add(-2 * Retention)
}

// compareJSON compares raw JSON by value, so a backend may store it
// re-encoded (PostgreSQL jsonb adds spaces).
var compareJSON = cmp.FilterValues(
	func(a, b json.RawMessage) bool { return json.Valid(a) && json.Valid(b) },
	cmp.Transformer("json", func(m json.RawMessage) any {
		var v any
		_ = json.Unmarshal(m, &v)
		return v
	}))

// same reports a difference between want and got.
func same[T any](t *testing.T, what string, want, got T) {
	t.Helper()
	if diff := cmp.Diff(want, got, compareJSON); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
	}
}

// wantRead checks what a read returned: want when wantFound, else
// nothing.
func wantRead[T any](t *testing.T, what string, got T, found bool, err error, want T, wantFound bool) {
	t.Helper()
	if err != nil || found != wantFound {
		t.Fatalf("%s = %v, %v; want found %v", what, found, err, wantFound)
	}
	same(t, what, want, got)
}

// must fails the test on err.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// wantErr checks that err wraps target.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s = %v, want %v", what, err, target)
	}
}

// recent reports whether at was set by the store just now.
func recent(at time.Time) bool {
	d := time.Since(at)
	return d > -time.Minute && d < time.Minute
}
