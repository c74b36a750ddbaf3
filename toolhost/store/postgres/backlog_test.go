package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

// TestRecoverBacklog: a dead replica left more started calls than
// start-up resolves in its time. Recover still succeeds — a replica must
// not fail to start for another's leftovers — with part of them done,
// and the heartbeat loop's sweeps resolve the rest.
func TestRecoverBacklog(t *testing.T) {
	t.Parallel()
	db := openDB(t, pgtest.Start(t), Options{HeartbeatInterval: 50 * time.Millisecond})
	ctx := t.Context()
	const n = 3000
	// Written in one statement: StartCall one by one would take longer
	// than the test.
	if _, err := db.pool.Exec(ctx, `INSERT INTO calls (id, started_ns, tool, status, instance, body, expires_at)
		SELECT 'tcr_' || g, g, 't', 'started', 'inst_dead',
			json_build_object('id', 'tcr_' || g, 'tool', 't', 'status', 'started', 'instance', 'inst_dead',
				'arguments', json_build_object(), 'started_at', now())::text,
			now() + interval '1 hour'
		FROM generate_series(1, $1) g`, n); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	r, err := db.Recover(rctx, "inst_now")
	cancel()
	if err != nil {
		t.Fatalf("Recover with a backlog = %v, want a start", err)
	}
	if r.Calls >= n {
		t.Fatalf("Recover resolved all %d calls within 300ms; the backlog is too small to test this", r.Calls)
	}
	t.Logf("start-up resolved %d of %d", r.Calls, n)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		page, _, err := db.Calls(ctx, store.CallQuery{Status: store.StatusStarted, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background sweeps did not resolve the backlog")
		}
		time.Sleep(100 * time.Millisecond)
	}
	page, _, err := db.Calls(ctx, store.CallQuery{Status: store.StatusOutcomeUnknown, Limit: 500})
	if err != nil || len(page) != 500 {
		t.Errorf("outcome_unknown calls = %d, %v; want them all", len(page), err)
	}
}
