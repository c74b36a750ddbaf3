package postgres

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/toolhost/store"
)

// deadAfter is how many heartbeat intervals an instance may miss before
// the others take it for dead: one late heartbeat (a pause, a slow
// database) must not end a live replica's calls.
const deadAfter = 3

// recoverTimeout bounds [DB.Recover] when its context has no deadline.
const recoverTimeout = time.Minute

// instanceState is the instance a store heartbeats.
type instanceState struct {
	mu      sync.Mutex
	id      string
	running bool
	// paused stops the heartbeats without ending the instance, as a
	// replica that froze or lost the database would (tests).
	paused atomic.Bool
}

// current is the instance's id; "" before Recover.
func (s *instanceState) current() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// Recover makes current this store's instance, with a heartbeat row that
// a background loop renews every [Options.HeartbeatInterval] until
// Close, and resolves what dead instances left behind, as the badger
// backend resolves what an earlier process left: their started calls
// become outcome_unknown (their replay rows too), their calls pending
// approval become expired, and their pending actions become expired with
// DecidedBy [store.DecidedByCrash]. Dead means without a heartbeat for
// three intervals; a live replica's records are never touched. The loop
// repeats the sweep, so a replica that dies later is resolved by the
// others. Recover with another id ends this store's earlier instance:
// it is that instance no more.
func (d *DB) Recover(ctx context.Context, current string) (store.Recovered, error) {
	if _, ok := ctx.Deadline(); !ok {
		// A crashed replica may have left many records, each resolved in
		// a transaction of its own: more than one operation's bound.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, recoverTimeout)
		defer cancel()
	}
	var r store.Recovered
	err := d.run(ctx, true, func(ctx context.Context) error {
		d.inst.mu.Lock()
		prev, start := d.inst.id, !d.inst.running
		d.inst.id, d.inst.running = current, true
		d.inst.mu.Unlock()
		if prev != "" && prev != current {
			if _, err := d.pool.Exec(ctx, `DELETE FROM instances WHERE id = $1`, prev); err != nil {
				return err
			}
		}
		if err := d.heartbeat(ctx, current); err != nil {
			return err
		}
		if start {
			// Under run's shared lock: Close has not begun, so its wait
			// sees this loop.
			d.loops.Go(d.heartbeatLoop)
		}
		var err error
		r, err = d.sweep(ctx, current)
		if err != nil && ctx.Err() != nil {
			// More than start-up may wait for: each record is resolved
			// in its own transaction, so what is done stays done, and
			// the heartbeat loop's sweeps resolve the rest.
			d.log.Warn("storage: stopped replicas left more than start-up resolves in time; the rest is resolved in the background",
				"component", "storage", "calls_outcome_unknown", r.Calls, "calls_expired", r.CallsExpired, "actions_expired", r.Actions)
			return nil
		}
		return err
	})
	if err != nil {
		return r, fmt.Errorf("recovering: %w", err)
	}
	return r, nil
}

// heartbeat renews id's row, on the database's clock: replicas' clocks
// may disagree, the database's is one.
func (d *DB) heartbeat(ctx context.Context, id string) error {
	_, err := d.pool.Exec(ctx, `INSERT INTO instances (id, heartbeat_at, dead_at)
		VALUES ($1, now(), now() + make_interval(secs => $2))
		ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, dead_at = excluded.dead_at`,
		id, (deadAfter * d.opts.HeartbeatInterval).Seconds())
	return err
}

// heartbeatLoop renews the instance's heartbeat every interval, resolves
// what dead instances left, and drops their rows, until Close.
func (d *DB) heartbeatLoop() {
	t := time.NewTicker(d.opts.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-t.C:
		}
		if d.inst.paused.Load() {
			continue
		}
		id := d.inst.current()
		ctx, cancel := context.WithTimeout(d.ctx, d.opts.OpTimeout)
		err := d.heartbeat(ctx, id)
		var r store.Recovered
		if err == nil {
			r, err = d.sweep(ctx, id)
		}
		if err == nil {
			_, err = d.pool.Exec(ctx, `DELETE FROM instances WHERE id <> $1 AND dead_at <= now()`, id)
		}
		cancel()
		switch {
		case d.ctx.Err() != nil:
			return
		case err != nil:
			d.log.Warn("storage heartbeat", "component", "storage", "instance", id, "error", err)
		case r != store.Recovered{}:
			d.log.Warn("storage resolved what a stopped replica left",
				"calls_outcome_unknown", r.Calls, "calls_expired", r.CallsExpired, "actions_expired", r.Actions)
		}
	}
}

// notLive is the condition, on a table with an instance column, that its
// instance is neither $2 (the caller) nor any instance still live.
const notLive = `instance <> $2 AND NOT EXISTS (SELECT 1 FROM instances i
	WHERE i.id = instance AND i.dead_at > now())`

// sweep resolves the open calls and actions of dead instances, each in a
// transaction of its own that locks its row and checks again, so that
// replicas sweeping at once resolve each record once.
func (d *DB) sweep(ctx context.Context, current string) (store.Recovered, error) {
	var r store.Recovered
	calls, err := d.resolveOpen(ctx, `SELECT id FROM calls WHERE status IN ('started', 'pending_approval')
		AND expires_at > $1 AND `+notLive, current, d.recoverCall)
	r.Calls, r.CallsExpired = calls[store.StatusOutcomeUnknown], calls[store.StatusExpired]
	if err != nil {
		return r, fmt.Errorf("started calls: %w", err)
	}
	actions, err := d.resolveOpen(ctx, `SELECT id FROM actions WHERE status = 'pending'
		AND expires_at > $1 AND `+notLive, current, d.recoverAction)
	r.Actions = actions[store.ActionExpired]
	if err != nil {
		return r, fmt.Errorf("pending actions: %w", err)
	}
	return r, nil
}

// resolveOpen calls resolve for every id the query finds, each in its own
// transaction, and counts the records resolved by the status they were
// given.
func (d *DB) resolveOpen(ctx context.Context, query, current string, resolve func(context.Context, pgx.Tx, string, string) (string, error)) (map[string]int, error) {
	rows, err := d.pool.Query(ctx, query, d.now(), current)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	n := map[string]int{}
	for _, id := range ids {
		var status string
		err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
			var err error
			status, err = resolve(ctx, tx, id, current)
			return err
		})
		if err != nil {
			return n, fmt.Errorf("%s: %w", id, err)
		}
		if status != "" {
			n[status]++
		}
	}
	return n, nil
}

// recoverCall marks the call id outcome_unknown if it is still started by
// a dead instance, and expired if it still waited for an approval: that
// call never ran.
func (d *DB) recoverCall(ctx context.Context, tx pgx.Tx, id, current string) (string, error) {
	var rec store.CallRecord
	ok, err := getJSON(ctx, tx, &rec, `SELECT body FROM calls WHERE id = $3 AND status IN ('started', 'pending_approval')
		AND expires_at > $1 AND `+notLive+` FOR UPDATE`, d.now(), current, id)
	if err != nil || !ok {
		return "", err // finished, or taken over, since the scan
	}
	switch rec.Status {
	case store.StatusStarted:
		rec.Status = store.StatusOutcomeUnknown
		if err := d.updateCall(ctx, tx, rec); err != nil {
			return "", err
		}
		if err := markReplayUnknown(ctx, tx, rec); err != nil {
			return "", err
		}
	case store.StatusPendingApproval:
		now := d.now().UTC()
		rec.Status, rec.FinishedAt = store.StatusExpired, &now
		rec.ErrorMessage = "the process stopped while the call waited for approval; it was not run"
		dec := store.Decision{Decision: store.ActionExpired, DecidedBy: store.DecidedByCrash, At: now}
		if rec.Approval != nil {
			dec.ActionID = rec.Approval.ActionID
		}
		rec.Approval = &dec
		if err := d.updateCall(ctx, tx, rec); err != nil {
			return "", err
		}
	default:
		return "", nil
	}
	return rec.Status, notify(ctx, tx, store.ChangeCall, rec.ID)
}

// recoverAction expires the action id if it is still pending in a dead
// instance.
func (d *DB) recoverAction(ctx context.Context, tx pgx.Tx, id, current string) (string, error) {
	var a store.Action
	ok, err := getJSON(ctx, tx, &a, `SELECT body FROM actions WHERE id = $3 AND status = 'pending'
		AND expires_at > $1 AND `+notLive+` FOR UPDATE`, d.now(), current, id)
	if err != nil || !ok || a.Status != store.ActionPending {
		return "", err
	}
	now := d.now()
	a.Status, a.DecidedBy, a.DecidedAt = store.ActionExpired, store.DecidedByCrash, &now
	return a.Status, writeAction(ctx, tx, a)
}
