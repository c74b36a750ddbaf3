package badger

import (
	"context"
	"fmt"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/toolhost/store"
)

// PutTool creates or replaces the runtime tool t.Name, which must pass
// [store.ValidName]. A zero CreatedAt keeps the replaced tool's (UpdatedAt for a
// new one); [store.Checked] fills a zero UpdatedAt. Runtime tools never expire.
func (d *DB) PutTool(ctx context.Context, t store.RuntimeTool) error {
	k := key(prefixTool, t.Name)
	err := d.update(ctx, func(txn *dgbadger.Txn) error {
		t := t // fn may run again
		if t.CreatedAt.IsZero() {
			var old store.RuntimeTool
			ok, err := getJSON(txn, k, &old)
			if err != nil {
				return err
			}
			t.CreatedAt = t.UpdatedAt // a new tool: created by this put
			if ok {
				t.CreatedAt = old.CreatedAt
			}
		}
		return d.putJSON(txn, k, t, 0)
	})
	d.changed(err, store.ChangeTools, t.Name)
	return wrapErr("saving tool", t.Name, err)
}

// DeleteTool removes a runtime tool and reports whether it existed.
func (d *DB) DeleteTool(ctx context.Context, name string) (bool, error) {
	k := key(prefixTool, name)
	existed := false
	err := d.update(ctx, func(txn *dgbadger.Txn) error {
		_, _, ok, err := getRaw(txn, k)
		if err != nil || !ok {
			existed = false
			return err
		}
		existed = true
		return txn.Delete(k)
	})
	d.changed(err, store.ChangeTools, name)
	if err != nil {
		return false, wrapErr("deleting tool", name, err)
	}
	return existed, nil
}

// Tools lists the runtime tools by name.
func (d *DB) Tools(ctx context.Context) ([]store.RuntimeTool, error) {
	var out []store.RuntimeTool
	err := d.view(ctx, func(txn *dgbadger.Txn) error {
		return scanJSON(txn, prefixTool, false, nil, func(_ []byte, t store.RuntimeTool) (bool, error) {
			out = append(out, t)
			return true, nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("listing tools: %w", err)
	}
	return out, nil
}
