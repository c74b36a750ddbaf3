package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// postgresServer finds the process of the PostgreSQL server at dsn, which
// must run on this machine: the parent of the backend serving a
// connection. Its children (backends, WAL writer, checkpointer) do the
// database's share of a @pg target's work.
func postgresServer(ctx context.Context, dsn string) (int, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return 0, fmt.Errorf("-pg-dsn: %w", err)
	}
	defer conn.Close(ctx)
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return 0, fmt.Errorf("-pg-dsn: %w", err)
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", backend))
	if err != nil {
		return 0, fmt.Errorf("-pg-dsn: the database server must run on this machine to be measured: %w", err)
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(fields) < 2 {
		return 0, fmt.Errorf("-pg-dsn: cannot read the server's process from /proc/%d/stat", backend)
	}
	return strconv.Atoi(fields[1])
}
