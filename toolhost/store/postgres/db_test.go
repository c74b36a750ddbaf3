package postgres

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
	"github.com/toolstream/toolstream/toolhost/store/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Wrap(m)) }

// storage is the config of a store on dsn with the suite's retentions.
func storage(dsn string) config.Storage {
	return config.Storage{
		Backend:        config.BackendPostgres,
		Postgres:       config.Postgres{DSN: config.Secret(dsn), MaxConns: 4},
		AuditRetention: storetest.Retention,
		TurnRetention:  storetest.Retention,
	}
}

// openDB opens a store on dsn and closes it when the test ends.
func openDB(t testing.TB, dsn string, opts Options) *DB {
	t.Helper()
	db, err := Open(t.Context(), storage(dsn), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Backend {
		return openDB(t, pgtest.Start(t), Options{})
	})
}
