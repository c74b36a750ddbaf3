package badger

import (
	"context"
	"fmt"
	"slices"
	"strings"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/toolhost/store"
)

// AddUsage adds u's amounts to u.Key's row of u.Day, read and written in
// one transaction under usageWrites, so no addition is lost to another.
// The row expires audit_retention after the day's end.
func (d *DB) AddUsage(ctx context.Context, u store.Usage) error {
	end, err := store.UsageExpiry(u.Day, d.auditRetention)
	if err != nil {
		return fmt.Errorf("adding usage: %w", err)
	}
	bk := key(prefixUsage, u.Key, "/", u.Day)
	d.usageWrites.Lock()
	defer d.usageWrites.Unlock()
	err = d.update(ctx, func(txn *dgbadger.Txn) error {
		var sum store.Usage
		if _, err := getJSON(txn, bk, &sum); err != nil {
			return err
		}
		sum.Key, sum.Day = u.Key, u.Day
		sum.Requests += u.Requests
		sum.PromptTokens += u.PromptTokens
		sum.CompletionTokens += u.CompletionTokens
		sum.CachedTokens += u.CachedTokens
		sum.ToolCalls += u.ToolCalls
		return d.putJSON(txn, bk, sum, expireAt(end))
	})
	return wrapErr("adding usage of", u.Key, err)
}

// Usage lists the rows q selects, by key name, then by day. The layout
// lists one key's days in order, but not the keys: "a-b/" sorts before
// "a/", as "-" is below "/".
func (d *DB) Usage(ctx context.Context, q store.UsageQuery) ([]store.Usage, error) {
	prefix := prefixUsage
	if q.Key != "" {
		prefix += q.Key + "/"
	}
	out := []store.Usage{}
	err := d.view(ctx, func(txn *dgbadger.Txn) error {
		return scanJSON(txn, prefix, false, nil, func(_ []byte, u store.Usage) (bool, error) {
			if (q.From == "" || u.Day >= q.From) && (q.To == "" || u.Day <= q.To) {
				out = append(out, u)
			}
			return true, nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("reading usage: %w", err)
	}
	slices.SortStableFunc(out, func(a, b store.Usage) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}
