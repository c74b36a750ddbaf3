package postgres

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

// TestBusyPoolIsNotAnOutage: with every connection of the pool in use,
// pings find none free, yet the database answers: the store stays
// reachable, so a loaded replica never refuses turns as if it were down.
func TestBusyPoolIsNotAnOutage(t *testing.T) {
	db := openDB(t, pgtest.Start(t), Options{PingInterval: 20 * time.Millisecond})
	var held []interface{ Release() }
	for range db.pool.Stat().MaxConns() {
		c, err := db.pool.Acquire(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	// Pings time out after DefaultConnectTimeout when none is free.
	time.Sleep(DefaultConnectTimeout + 10*db.opts.PingInterval)
	if err := db.Reachable(); err != nil {
		t.Errorf("Reachable with a busy pool = %v, want nil", err)
	}
	for _, c := range held {
		c.Release()
	}
}
