package config

import (
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// maxPostgresConns bounds storage.postgres.max_conns: PostgreSQL's own
// default max_connections is 100, shared by every replica.
const maxPostgresConns = 1000

// postgres checks the storage block of backend postgres. The DSN is
// parsed the way the backend will parse it, so a typo fails at check, not
// at the first start; no message repeats it (it may hold a password).
func (v *validator) postgres(s Storage) {
	if s.InMemory {
		v.add("storage.in_memory", "applies to badger only; with backend postgres everything is in the database")
	}
	switch dsn := s.Postgres.DSN.Value(); {
	case dsn == "":
		v.add("storage.postgres.dsn", "required with backend postgres (e.g. postgres://toolstream:PASSWORD@db:5432/toolstream)")
	default:
		if _, err := pgconn.ParseConfig(dsn); err != nil {
			v.add("storage.postgres.dsn", "not a PostgreSQL connection string: %s", parseReason(err))
		}
	}
	if n := s.Postgres.MaxConns; n < 1 || n > maxPostgresConns {
		v.add("storage.postgres.max_conns", "%d is out of range (want 1 to %d)", n, maxPostgresConns)
	}
}

// parseReason is why pgconn refused a DSN, without the DSN: pgconn's
// own message quotes it with the password masked, but the user and host
// need not be printed either.
func parseReason(err error) string {
	msg := err.Error() // "cannot parse `DSN`: reason"
	if i := strings.LastIndex(msg, "`: "); i >= 0 {
		return msg[i+3:]
	}
	return "it cannot be parsed"
}
