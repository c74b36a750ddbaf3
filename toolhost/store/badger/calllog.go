package badger

import (
	"bytes"
	"context"
	"fmt"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/toolhost/store"
)

// Calls returns a page of the audit log, newest first, and the cursor of
// the next page ("" when this is the last). The cursor is the key of the
// page's last record, so records written meanwhile never shift a page. A
// Before that is not such a cursor fails with [store.ErrBadCursor].
func (d *DB) Calls(ctx context.Context, q store.CallQuery) ([]store.CallRecord, string, error) {
	limit := q.Limit
	var from []byte
	if q.Before != "" {
		var err error
		if from, err = parseCursor(prefixAudit, q.Before); err != nil {
			return nil, "", fmt.Errorf("listing calls: %w", err)
		}
	}
	var (
		out  []store.CallRecord
		last []byte // key of out's last record
		next string
	)
	err := d.view(ctx, func(txn *dgbadger.Txn) error {
		return scanJSON(txn, prefixAudit, true, from, func(k []byte, rec store.CallRecord) (bool, error) {
			if from != nil && bytes.Equal(k, from) {
				return true, nil // the previous page's last record
			}
			if !matchCall(q, rec) {
				return true, nil
			}
			if len(out) == limit {
				// One more matches: this page is not the last.
				next = cursor(prefixAudit, last)
				return false, nil
			}
			out = append(out, rec)
			last = append(last[:0], k...)
			return true, nil
		})
	})
	if err != nil {
		return nil, "", fmt.Errorf("listing calls: %w", err)
	}
	return out, next, nil
}

func matchCall(q store.CallQuery, rec store.CallRecord) bool {
	return (q.Tool == "" || rec.Tool == q.Tool) && (q.Status == "" || rec.Status == q.Status)
}
