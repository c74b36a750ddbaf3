package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/toolhost/store"
)

// Calls returns a page of the audit log, newest first, and the cursor of
// the next page ("" when this is the last). The cursor names the page's
// last record (its start and id), so records written meanwhile never
// shift a page. A Before that is not such a cursor fails with
// [store.ErrBadCursor].
func (d *DB) Calls(ctx context.Context, q store.CallQuery) ([]store.CallRecord, string, error) {
	limit := q.Limit
	var (
		sql  strings.Builder
		args = []any{d.now()}
	)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	sql.WriteString(`SELECT started_ns, id, body FROM calls WHERE expires_at > $1`)
	if q.Tool != "" {
		sql.WriteString(` AND tool = ` + arg(q.Tool))
	}
	if q.Status != "" {
		sql.WriteString(` AND status = ` + arg(q.Status))
	}
	if q.Before != "" {
		ns, id, err := parseCursor(q.Before)
		if err != nil {
			return nil, "", fmt.Errorf("listing calls: %w", err)
		}
		fmt.Fprintf(&sql, ` AND (started_ns, id) < (%s, %s COLLATE "C")`, arg(ns), arg(id))
	}
	// One more than the page: whether it comes says if a next page does.
	sql.WriteString(` ORDER BY started_ns DESC, id DESC LIMIT ` + arg(limit+1))

	var (
		out    []store.CallRecord
		lastNs int64
		lastID string
		next   string
	)
	err := d.view(ctx, func(ctx context.Context, db querier) error {
		rows, err := db.Query(ctx, sql.String(), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				ns   int64
				id   string
				body []byte
			)
			if err := rows.Scan(&ns, &id, &body); err != nil {
				return err
			}
			if len(out) == limit {
				next = cursor(lastNs, lastID)
				break
			}
			var rec store.CallRecord
			if err := json.Unmarshal(body, &rec); err != nil {
				return err
			}
			out, lastNs, lastID = append(out, rec), ns, id
		}
		return rows.Err()
	})
	if err != nil {
		return nil, "", fmt.Errorf("listing calls: %w", err)
	}
	return out, next, nil
}
