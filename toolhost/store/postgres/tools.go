package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/toolhost/store"
)

// PutTool creates or replaces the runtime tool t.Name, which must pass
// [store.ValidName]. A zero CreatedAt keeps the replaced tool's (UpdatedAt for a
// new one); [store.Checked] fills a zero UpdatedAt. Runtime tools never expire.
func (d *DB) PutTool(ctx context.Context, t store.RuntimeTool) error {
	err := d.update(ctx, func(ctx context.Context, tx pgx.Tx) error {
		t := t // fn may run again
		if t.CreatedAt.IsZero() {
			var old store.RuntimeTool
			ok, err := getJSON(ctx, tx, &old, `SELECT body FROM runtime_tools WHERE name = $1 FOR UPDATE`, t.Name)
			if err != nil {
				return err
			}
			t.CreatedAt = t.UpdatedAt // a new tool: created by this put
			if ok {
				t.CreatedAt = old.CreatedAt
			}
		}
		body, err := marshal(t)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO runtime_tools (name, body) VALUES ($1, $2)
			ON CONFLICT (name) DO UPDATE SET body = excluded.body`, t.Name, body); err != nil {
			return err
		}
		return notify(ctx, tx, store.ChangeTools, t.Name)
	})
	return wrapErr("saving tool", t.Name, err)
}

// DeleteTool removes a runtime tool and reports whether it existed.
func (d *DB) DeleteTool(ctx context.Context, name string) (bool, error) {
	existed := false
	err := d.update(ctx, func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM runtime_tools WHERE name = $1`, name)
		if err != nil {
			return err
		}
		existed = tag.RowsAffected() > 0
		// Told even when there was none, as the badger backend does: a
		// replica that holds a stale copy drops it.
		return notify(ctx, tx, store.ChangeTools, name)
	})
	if err != nil {
		return false, wrapErr("deleting tool", name, err)
	}
	return existed, nil
}

// Tools lists the runtime tools by name.
func (d *DB) Tools(ctx context.Context) ([]store.RuntimeTool, error) {
	var out []store.RuntimeTool
	err := d.view(ctx, func(ctx context.Context, q querier) error {
		var err error
		out, err = listJSON[store.RuntimeTool](ctx, q, `SELECT body FROM runtime_tools ORDER BY name`)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("listing tools: %w", err)
	}
	return out, nil
}
