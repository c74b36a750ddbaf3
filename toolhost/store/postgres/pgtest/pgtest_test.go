package pgtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"

	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Wrap(m)) }

// TestStart: each Start is a database of its own on one cluster.
func TestStart(t *testing.T) {
	a, b := pgtest.Start(t), pgtest.Start(t)
	if a == b {
		t.Fatalf("two Starts gave one DSN %q", a)
	}
	ctx := context.Background()
	for _, dsn := range []string{a, b} {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		err = conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&n)
		conn.Close(ctx)
		if err != nil || n != 0 {
			t.Errorf("%s: %d tables, %v; want an empty database", dsn, n, err)
		}
	}
}
