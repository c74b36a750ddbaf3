package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/toolstream/toolstream/toolhost/store"
)

// changesChannel is the notification channel of the change feed.
const changesChannel = "toolstream_changes"

// querier is what reads need of a pool or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// view runs fn on the pool, bounded and with its errors classified.
func (d *DB) view(ctx context.Context, fn func(ctx context.Context, q querier) error) error {
	return d.run(ctx, false, func(ctx context.Context) error { return fn(ctx, d.pool) })
}

// update runs fn in a transaction and commits it. fn's notifications go
// out with the commit, and not at all when it fails.
func (d *DB) update(ctx context.Context, fn func(ctx context.Context, tx pgx.Tx) error) error {
	return d.run(ctx, true, func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error { return fn(ctx, tx) })
	})
}

// write runs fn, a write of one statement, on the pool. PostgreSQL runs
// a statement sent alone as a transaction of its own: committed when it
// returns, its notifications sent with that commit, and a round trip
// each for BEGIN and COMMIT saved.
func (d *DB) write(ctx context.Context, fn func(ctx context.Context, q querier) error) error {
	return d.run(ctx, true, func(ctx context.Context) error { return fn(ctx, d.pool) })
}

// run runs fn while the store is open, bounded by the operation timeout,
// and counts a write's storage failures. While the pings find the
// database silent, fn is not run, and one running is canceled as they
// find it so: a stalled database fails an operation within a ping
// interval and a ping's timeout, whatever the operation's own bound.
func (d *DB) run(ctx context.Context, write bool, fn func(ctx context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return store.ErrClosed
	}
	err := d.health.reachable()
	if err == nil {
		octx, cancel := d.bound(ctx)
		defer cancel()
		octx, unwatch := d.health.watch(octx)
		defer unwatch()
		err = fn(octx)
		if cause := context.Cause(octx); err != nil && ctx.Err() == nil && errors.Is(cause, store.ErrUnavailable) {
			err = cause // canceled for the outage, not by the caller
		}
		err = unavailable(ctx, err)
	}
	if write {
		d.health.noteWrite(ctx, err)
	}
	return err
}

// unavailable wraps err in [store.ErrUnavailable] when it says the
// database could not be reached or did not answer in time, so callers
// can tell an outage (HTTP 503) from a failed statement or a bad record.
// The caller's own cancellation stays what it is.
func unavailable(ctx context.Context, err error) error {
	if err == nil || errors.Is(err, store.ErrUnavailable) || isStoreError(err) {
		return err
	}
	if cerr := ctx.Err(); cerr != nil {
		if errors.Is(err, cerr) {
			return err
		}
		return fmt.Errorf("%w (%v)", cerr, err)
	}
	if !unreachable(err) {
		return err
	}
	return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
}

// unreachable reports an error of the connection rather than of the
// statement: no server, a connection lost or closed, no answer in time
// (the operation's own bound), or a server saying it shuts down.
func unreachable(err error) bool {
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03": // admin or crash shutdown, cannot connect now
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08") // connection exception
	}
	_, connect := errors.AsType[*pgconn.ConnectError](err)
	_, network := errors.AsType[net.Error](err)
	return connect || network || pgconn.Timeout(err) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// isUnavailable reports an error that says the database is out of reach.
func isUnavailable(err error) bool { return errors.Is(err, store.ErrUnavailable) }

// isStoreError reports the errors methods return for the caller's sake.
func isStoreError(err error) bool {
	for _, e := range []error{store.ErrNotFound, store.ErrDecided, store.ErrTooLarge, store.ErrInvalidKey,
		store.ErrExists, store.ErrClosed, store.ErrBadCursor} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// notify sends a change to every store listening on the database when
// tx commits.
func notify(ctx context.Context, tx pgx.Tx, kind store.ChangeKind, id string) error {
	_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, changesChannel, payload(kind, id))
	return err
}

// payload is a notification's text, as parsePayload reads it.
func payload(kind store.ChangeKind, id string) string {
	return strconv.Itoa(int(kind)) + ":" + id
}

// marshal is v as JSON, refused with [store.ErrTooLarge] above
// maxRecord.
func marshal(v any) (string, error) {
	val, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return sized(val)
}

// sized checks a record's size and makes it text PostgreSQL takes.
// encoding/json replaces invalid UTF-8 in strings, but passes the raw
// JSON fields of a record (arguments, messages) through as they are, and
// a text column refuses invalid UTF-8: such bytes become U+FFFD, as
// encoding/json would have made them, rather than fail the write.
func sized(val []byte) (string, error) {
	if len(val) > maxRecord {
		return "", fmt.Errorf("%w: record of %d bytes, limit %d", store.ErrTooLarge, len(val), maxRecord)
	}
	if !utf8.Valid(val) {
		val = bytes.ToValidUTF8(val, []byte("\uFFFD"))
	}
	return string(val), nil
}

// getJSON reads the one JSON body the query selects into v; false when
// there is no row.
func getJSON(ctx context.Context, q querier, v any, sql string, args ...any) (bool, error) {
	var body []byte
	err := q.QueryRow(ctx, sql, args...).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal(body, v)
}

// listJSON reads the JSON bodies the query selects, in its order.
func listJSON[T any](ctx context.Context, q querier, sql string, args ...any) ([]T, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T // nil when none: a list with no record is no list
	for rows.Next() {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return nil, err
		}
		var v T
		if err := json.Unmarshal(body, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// wrapErr adds the operation and id to a non-nil err.
func wrapErr(op, id string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s %s: %w", op, id, err)
}
