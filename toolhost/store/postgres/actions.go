package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/toolhost/store"
)

// decidedByTimeout is the DecidedBy of an action [DB.DecideAction] found
// past its ExpiresAt.
const decidedByTimeout = "timeout"

// CreateAction stores a with Status pending, expiring
// storage.audit_retention after CreatedAt (now when zero). a.ID must pass
// [store.ValidName].
func (d *DB) CreateAction(ctx context.Context, a store.Action) error {
	body, err := marshal(a)
	if err != nil {
		return wrapErr("creating action", a.ID, err)
	}
	err = d.update(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO actions (id, created_ns, key_id, status, instance, body, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (id) DO UPDATE SET created_ns = excluded.created_ns, key_id = excluded.key_id, status = excluded.status,
				instance = excluded.instance, body = excluded.body, expires_at = excluded.expires_at`,
			a.ID, unixNanos(a.CreatedAt), a.KeyID, a.Status, a.Instance, body, a.CreatedAt.Add(d.auditRetention)); err != nil {
			return err
		}
		return notify(ctx, tx, store.ChangeAction, a.ID)
	})
	return wrapErr("creating action", a.ID, err)
}

// Action returns one action by id; false when there is none (or it
// expired).
func (d *DB) Action(ctx context.Context, id string) (store.Action, bool, error) {
	var a store.Action
	found := false
	err := d.view(ctx, func(ctx context.Context, q querier) error {
		var err error
		found, err = getJSON(ctx, q, &a, `SELECT body FROM actions WHERE id = $1 AND expires_at > $2`, id, d.now())
		return err
	})
	if err != nil || !found {
		return store.Action{}, false, wrapErr("reading action", id, err)
	}
	return a, true, nil
}

// Actions lists actions newest first: those of q.KeyID unless q.All, of
// q.Status when set, at most q.Limit (100 when zero or less).
func (d *DB) Actions(ctx context.Context, q store.ActionQuery) ([]store.Action, error) {
	limit := q.Limit
	var (
		sql  strings.Builder
		args = []any{d.now()}
	)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	sql.WriteString(`SELECT body FROM actions WHERE expires_at > $1`)
	if !q.All {
		sql.WriteString(` AND key_id = ` + arg(q.KeyID))
	}
	if q.Status != "" {
		sql.WriteString(` AND status = ` + arg(q.Status))
	}
	sql.WriteString(` ORDER BY created_ns DESC, id DESC LIMIT ` + arg(limit))
	var out []store.Action
	err := d.view(ctx, func(ctx context.Context, db querier) error {
		var err error
		out, err = listJSON[store.Action](ctx, db, sql.String(), args...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("listing actions: %w", err)
	}
	return out, nil
}

// DecideAction moves a pending action to status (approved, denied or
// expired), atomically: the transaction locks the action's row, so of
// two deciders the second waits for the first to commit, reads its
// decision and returns [store.ErrDecided] with it. A pending action past
// its ExpiresAt is expired by the call (DecidedBy "timeout") unless status
// is expired already, and the call gets ErrDecided: an approval that came
// too late does not count.
func (d *DB) DecideAction(ctx context.Context, id, status, decidedBy, reason string) (store.Action, error) {
	return d.decide(ctx, id, status, decidedBy, reason, nil)
}

// ApproveEdited approves a pending action as [DB.DecideAction] does,
// keeping arguments as its EditedArguments in the same write.
func (d *DB) ApproveEdited(ctx context.Context, id, decidedBy string, arguments json.RawMessage) (store.Action, error) {
	return d.decide(ctx, id, store.ActionApproved, decidedBy, "", arguments)
}

// decide is DecideAction with the approver's edit, nil when none.
func (d *DB) decide(ctx context.Context, id, status, decidedBy, reason string, edit json.RawMessage) (store.Action, error) {
	var (
		out  store.Action
		late bool // found past its ExpiresAt and expired instead
	)
	err := d.update(ctx, func(ctx context.Context, tx pgx.Tx) error {
		var a store.Action
		ok, err := getJSON(ctx, tx, &a, `SELECT body FROM actions WHERE id = $1 AND expires_at > $2 FOR UPDATE`, id, d.now())
		if err != nil {
			return err
		}
		if !ok {
			return store.ErrNotFound
		}
		out = a
		if a.Status != store.ActionPending {
			return store.ErrDecided
		}
		now := d.now()
		st, by, why := status, decidedBy, reason
		late = status != store.ActionExpired && !a.ExpiresAt.IsZero() && !now.Before(a.ExpiresAt)
		if late {
			st, by, why, edit = store.ActionExpired, decidedByTimeout, "", nil
		}
		a.EditedArguments = edit
		a.Status, a.DecidedBy, a.Reason, a.DecidedAt = st, by, why, &now
		out = a
		return writeAction(ctx, tx, a)
	})
	switch {
	case err != nil:
		return out, wrapErr("deciding action", id, err)
	case late:
		return out, fmt.Errorf("deciding action %s: %w (expired at %s)", id, store.ErrDecided, out.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return out, nil
}

// writeAction replaces the body and status of the stored action a.ID,
// keeping its place and expiry, and tells the feed.
func writeAction(ctx context.Context, tx pgx.Tx, a store.Action) error {
	body, err := marshal(a)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE actions SET status = $2, body = $3 WHERE id = $1`, a.ID, a.Status, body); err != nil {
		return err
	}
	return notify(ctx, tx, store.ChangeAction, a.ID)
}
