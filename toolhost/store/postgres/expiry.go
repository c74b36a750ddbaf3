package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// expiring are the tables whose rows expire. Reads skip an expired row
// whether or not it is deleted yet; the sweep only gives the space back.
var expiring = []string{"turns", "turn_keys", "responses", "response_items", "text_fallbacks",
	"calls", "replays", "actions", "runtime_keys", "usage_days"}

// expiryLoop deletes expired rows every ExpiryInterval until Close.
func (d *DB) expiryLoop() {
	t := time.NewTicker(d.opts.ExpiryInterval)
	defer t.Stop()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(d.ctx, max(d.opts.OpTimeout, time.Minute))
		_, err := d.expire(ctx)
		cancel()
		if err != nil && d.ctx.Err() == nil {
			d.log.Warn("deleting expired records", "component", "storage", "error", err)
		}
	}
}

// expire deletes the rows expired by now and returns how many, or does
// nothing when another replica's sweep holds the lock: one sweep at a
// time is enough, and two would only wait on each other's rows.
func (d *DB) expire(ctx context.Context) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, expiryLock).Scan(&mine); err != nil || !mine {
			return err
		}
		now := d.now()
		for _, table := range expiring {
			tag, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE expires_at <= $1`, now)
			if err != nil {
				return fmt.Errorf("%s: %w", table, err)
			}
			n += tag.RowsAffected()
		}
		return nil
	})
	return n, err
}
