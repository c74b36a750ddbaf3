// Package postgres is the shared storage backend: a [store.Store] kept in
// one PostgreSQL database that any number of toolstream replicas use at
// once.
//
// # Semantics
//
// Every method behaves as the badger backend's does (the conformance
// suite, store/storetest, holds both to it). Records are the same JSON,
// in tables with the columns they are found by (migrations/). A record
// past its expiry is never read, whatever the table still holds: reads
// compare expires_at with the store's clock ([Options.Now]), and a sweep
// deletes such rows every [Options.ExpiryInterval], run by one replica at
// a time.
//
// The writes every turn makes (StartCall, FinishCall, RecordCall,
// SaveTurn) are one statement each, with CTEs where they touch several
// tables: PostgreSQL runs a statement sent alone as a transaction of its
// own, so each costs one round trip and is committed when it returns,
// where BEGIN, a statement a table and COMMIT cost four to six.
//
// # Replicas
//
// Writes that change what other replicas hold in memory (actions, call
// results, runtime tools and keys) send a notification in their own
// transaction, so a write that rolls back tells nobody; each store
// LISTENs on a connection of its own and passes what it hears to its
// subscribers, its own writes included (feed.go). Each replica keeps a
// heartbeat row; what a replica without a recent heartbeat left started
// or pending is resolved by the others (recover.go).
//
// # Failures
//
// Every operation is bounded ([Options.OpTimeout] when the context has no
// deadline), so a database that does not answer fails calls quickly with
// an error wrapping [store.ErrUnavailable] instead of holding requests,
// and [DB.Ready] reports it within a ping interval.
package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Defaults of [Options].
const (
	DefaultExpiryInterval    = time.Minute
	DefaultResyncInterval    = 30 * time.Second
	DefaultHeartbeatInterval = 5 * time.Second
	DefaultPingInterval      = time.Second
	DefaultOpTimeout         = 5 * time.Second
	// DefaultConnectTimeout bounds a new connection when the DSN sets no
	// connect_timeout: an unreachable server must fail calls in
	// seconds, not after the operating system's TCP timeout.
	DefaultConnectTimeout = 2 * time.Second
)

// maxRecord bounds one record's JSON. PostgreSQL takes up to 1 GB in a
// field, but a record that large is a bug upstream of the store, and
// every replica that reads it would hold it in memory.
const maxRecord = 16 << 20

// Options configure a [DB]. The zero value is ready to use.
type Options struct {
	// Logger receives the backend's warnings (a lost notification
	// connection, a failed sweep). Nil discards.
	Logger *slog.Logger
	// Now is the clock for times a record leaves zero and for expiry,
	// as in the badger backend. Nil means time.Now. Heartbeats use the
	// database's clock, which all replicas share.
	Now func() time.Time
	// ExpiryInterval is the period of the sweep that deletes expired
	// rows. Zero means [DefaultExpiryInterval].
	ExpiryInterval time.Duration
	// ResyncInterval is the period of the [store.ChangeResync] sent to
	// subscribers as a fallback for notifications that never came. Zero
	// means [DefaultResyncInterval].
	ResyncInterval time.Duration
	// HeartbeatInterval is how often a recovered store ([DB.Recover])
	// renews its instance's heartbeat and resolves what dead instances
	// left. An instance is dead after three intervals without one. Zero
	// means [DefaultHeartbeatInterval].
	HeartbeatInterval time.Duration
	// PingInterval is how often [DB.Ready]'s view of the database is
	// renewed. Zero means [DefaultPingInterval].
	PingInterval time.Duration
	// OpTimeout bounds an operation whose context has no deadline. Zero
	// means [DefaultOpTimeout].
	OpTimeout time.Duration

	// tracer, when set, sees the pool's statements: tests count the
	// round trips an operation costs.
	tracer pgx.QueryTracer
}

// DB is the PostgreSQL backend of [store.Store]. It is safe for
// concurrent use, by any number of processes on one database. Close it
// when done: it runs a listener and background loops.
type DB struct {
	pool           *pgxpool.Pool
	listenCfg      *pgx.ConnConfig // the listener's own connection
	log            *slog.Logger
	now            func() time.Time
	turnRetention  time.Duration
	auditRetention time.Duration
	opts           Options // intervals, defaults filled in

	// mu orders every operation before Close: operations hold it shared,
	// Close exclusively, so no query runs on a closed pool. Background
	// loops do not take it; Close stops them through ctx.
	mu     sync.RWMutex
	closed bool

	ctx    context.Context // canceled by Close
	cancel context.CancelFunc
	loops  sync.WaitGroup

	feed        store.Hub
	listenerPID atomic.Uint32 // backend pid of the LISTEN connection

	health health

	// inst is the instance this store heartbeats, set by Recover.
	inst instanceState
}

// Open connects to the database cfg.Postgres.DSN names with a pool of
// cfg.Postgres.MaxConns connections, applies the schema migrations it
// lacks, starts listening for changes and starts the expiry sweep. Zero
// retentions mean the config defaults. cfg.Backend is not looked at.
func Open(ctx context.Context, cfg config.Storage, opts Options) (*DB, error) {
	defaults := config.Default().Storage
	dsn := cfg.Postgres.DSN.Value()
	if dsn == "" {
		return nil, errors.New("opening storage: storage.postgres.dsn is empty")
	}
	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, errors.New("opening storage: storage.postgres.dsn is not a PostgreSQL connection string")
	}
	pcfg.MaxConns = int32(cmp.Or(cfg.Postgres.MaxConns, defaults.Postgres.MaxConns))
	if pcfg.ConnConfig.ConnectTimeout <= 0 {
		pcfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	opts.ExpiryInterval = cmpOr(opts.ExpiryInterval, DefaultExpiryInterval)
	opts.ResyncInterval = cmpOr(opts.ResyncInterval, DefaultResyncInterval)
	opts.HeartbeatInterval = cmpOr(opts.HeartbeatInterval, DefaultHeartbeatInterval)
	opts.PingInterval = cmpOr(opts.PingInterval, DefaultPingInterval)
	opts.OpTimeout = cmpOr(opts.OpTimeout, DefaultOpTimeout)
	d := &DB{
		listenCfg:      pcfg.ConnConfig.Copy(),
		log:            opts.Logger,
		now:            opts.Now,
		turnRetention:  cmpOr(cfg.TurnRetention, defaults.TurnRetention),
		auditRetention: cmpOr(cfg.AuditRetention, defaults.AuditRetention),
		opts:           opts,
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.now == nil {
		d.now = time.Now
	}
	if opts.tracer != nil {
		pcfg.ConnConfig.Tracer = opts.tracer // the pool's only, not the listener's
	}
	d.pool, err = pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("opening storage: %w", err)
	}
	startCtx, cancel := d.bound(ctx)
	defer cancel()
	if err := checkEncoding(startCtx, d.pool); err != nil {
		d.pool.Close()
		return nil, fmt.Errorf("opening storage: %w", unavailable(ctx, err))
	}
	if err := migrate(startCtx, d.pool); err != nil {
		d.pool.Close()
		return nil, fmt.Errorf("opening storage: %w", unavailable(ctx, err))
	}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	// Listening before Open returns: a change made right after it must
	// reach a subscriber.
	conn, err := d.listen(startCtx)
	if err != nil {
		d.cancel()
		d.pool.Close()
		return nil, fmt.Errorf("opening storage: listening for changes: %w", unavailable(ctx, err))
	}
	d.loops.Go(func() { d.listenLoop(conn) })
	d.loops.Go(d.resyncLoop)
	d.loops.Go(d.expiryLoop)
	d.loops.Go(d.pingLoop)
	return d, nil
}

// Close stops the background loops and the listener, waits for running
// operations, ends this store's instance and closes the pool. The
// instance's heartbeat row is deleted, so whatever it still held open is
// resolved by the other replicas at once instead of once its heartbeat
// lapses. Calling it again does nothing and returns nil.
func (d *DB) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	d.cancel()
	d.loops.Wait()
	d.feed.Close()
	var err error
	if id := d.inst.current(); id != "" {
		ctx, cancel := context.WithTimeout(context.Background(), d.opts.OpTimeout)
		_, err = d.pool.Exec(ctx, `DELETE FROM instances WHERE id = $1`, id)
		cancel()
		if err != nil {
			err = fmt.Errorf("closing storage: ending instance %s: %w", id, unavailable(context.Background(), err))
		}
	}
	d.pool.Close()
	return err
}

// Now is the clock the records are stamped and expired by (Options.Now);
// [store.Checked] fills a record's zero times with it.
func (d *DB) Now() time.Time { return d.now() }

// Ready reports whether the store can serve (for /readyz):
// [store.ErrClosed] after Close; an error wrapping [store.ErrUnavailable]
// while the database does not answer its pings, and one wrapping
// [store.ErrWriteFailed] for a minute after a write failed; nil
// otherwise.
func (d *DB) Ready() error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return store.ErrClosed
	}
	return d.health.ready(time.Now())
}

// WriteFailures counts the writes that failed for the storage's sake
// (see [store.Lifecycle.WriteFailures]).
func (d *DB) WriteFailures() uint64 { return d.health.failures.Load() }

// bound is ctx with the operation timeout when it has no deadline.
func (d *DB) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d.opts.OpTimeout)
}

// cmpOr is d, or def when d is not positive.
func cmpOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

var _ store.Store = (*DB)(nil)
