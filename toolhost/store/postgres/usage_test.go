package postgres

import (
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

// TestUsageAcrossReplicas: replicas adding to one key's day at once, each
// through its own pool, lose nothing: every turn counts once.
func TestUsageAcrossReplicas(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Start(t)
	replicas := []*DB{openDB(t, dsn, Options{}), openDB(t, dsn, Options{}), openDB(t, dsn, Options{})}
	day := store.UsageDay(time.Now())
	const perReplica = 30
	var wg sync.WaitGroup
	for _, db := range replicas {
		for range perReplica {
			wg.Go(func() {
				u := store.Usage{Key: "busy", Day: day, Requests: 1, PromptTokens: 10, CompletionTokens: 2, CachedTokens: 4, ToolCalls: 1}
				if err := db.AddUsage(t.Context(), u); err != nil {
					t.Errorf("AddUsage: %v", err)
				}
			})
		}
	}
	wg.Wait()
	n := int64(len(replicas) * perReplica)
	want := store.Usage{Key: "busy", Day: day, Requests: n, PromptTokens: 10 * n, CompletionTokens: 2 * n, CachedTokens: 4 * n, ToolCalls: n}
	for i, db := range replicas {
		got, err := db.Usage(t.Context(), store.UsageQuery{Key: "busy"})
		if err != nil || len(got) != 1 || got[0] != want {
			t.Errorf("replica %d reads %+v, %v; want %+v", i, got, err, want)
		}
	}
}

// TestUsageSwept: the expiry sweep deletes the usage of days past
// audit_retention, with the audit log, and keeps today's.
func TestUsageSwept(t *testing.T) {
	t.Parallel()
	s := openDB(t, pgtest.Start(t), Options{})
	ctx := t.Context()
	for _, day := range []string{"2020-01-01", store.UsageDay(time.Now())} {
		if err := s.AddUsage(ctx, store.Usage{Key: "k", Day: day, Requests: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.expire(ctx); err != nil || n != 1 {
		t.Errorf("expire = %d, %v; want 1 row", n, err)
	}
	var left int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM usage_days`).Scan(&left); err != nil || left != 1 {
		t.Errorf("usage rows left = %d, %v; want today's", left, err)
	}
}
