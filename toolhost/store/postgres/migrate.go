package postgres

import (
	"context"
	"embed"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrations are the schema's steps, NNNN_name.sql, applied in order and
// never edited once released: a change is a new file.
//
//go:embed migrations/*.sql
var migrations embed.FS

// Advisory lock keys of this backend (any constants no other user of the
// database picks; they spell "tsmg" and "tsex").
const (
	migrateLock = 0x74736d67
	expiryLock  = 0x74736578
)

// migration is one embedded step.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations returns the embedded steps in version order.
func loadMigrations() ([]migration, error) {
	entries, err := migrations.ReadDir("migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name is not NNNN_name.sql", e.Name())
		}
		sql, err := migrations.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(sql)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	return out, nil
}

// migrate applies the steps the database lacks, all in one transaction
// that holds an advisory lock: replicas starting together wait for the
// first, then find nothing left to do; a step that fails leaves the
// schema as it was.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	steps, err := loadMigrations()
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLock); err != nil {
			return fmt.Errorf("locking the schema: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    integer PRIMARY KEY,
			applied_at timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
			return fmt.Errorf("creating schema_migrations: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT version FROM schema_migrations`)
		if err != nil {
			return err
		}
		done, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			return err
		}
		for _, m := range steps {
			if slices.Contains(done, int32(m.version)) {
				continue
			}
			// No arguments: pgx sends the file as one simple query, so it
			// may hold several statements.
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, m.version); err != nil {
				return err
			}
		}
		return nil
	})
}

// checkEncoding refuses a database whose encoding cannot hold any text:
// records hold what models and tools wrote, in any script, and a
// database created as LATIN1 (say) would fail those writes one by one.
func checkEncoding(ctx context.Context, pool *pgxpool.Pool) error {
	var enc string
	if err := pool.QueryRow(ctx, `SHOW server_encoding`).Scan(&enc); err != nil {
		return err
	}
	if enc != "UTF8" && enc != "SQL_ASCII" {
		return fmt.Errorf("the database's encoding is %s; toolstream needs UTF8 (CREATE DATABASE ... ENCODING 'UTF8')", enc)
	}
	return nil
}
