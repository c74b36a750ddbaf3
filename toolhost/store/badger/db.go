// Package badger is the embedded storage backend: a [store.Store] kept in
// one badger database, for a single toolstream process.
//
// # Durability
//
// badger writes every commit into its write-ahead log, a file mapped into
// memory (memtable.go, value.go in badger v4). Once a commit returned, its
// entries are in the kernel's page cache, so a crash of the process
// (SIGKILL, a panic, the OOM killer) loses nothing even without any sync.
// A power loss or kernel crash loses what the kernel had not written back
// yet. badger's SyncWrites msyncs the log before a commit returns; it is
// database-wide, and badger's DB.Sync alone is no substitute: it syncs only
// the current memtable's log, so an entry whose memtable was rotated away
// between the commit and the Sync stays unsynced until its flush.
//
// This backend turns SyncWrites on. Every commit on disk then survives a
// power loss when it returns, at the cost of an msync per commit group
// (badger batches concurrent commits): BenchmarkStartCall measured
// 0.15 ms per StartCall against 0.01 ms without on a virtual disk, next to
// tool calls and turns that take tens of milliseconds to minutes. The
// write that needs it is [DB.StartCall]: the started record is what keeps
// a tool from running twice after a crash (TestStartCallSurvivesKill pins
// the SIGKILL case). Memory mode has nothing to sync and loses everything
// when the process ends.
package badger

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	dgbadger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Sizing. badger's defaults are for a database server (5 × 64 MiB memtables,
// a 256 MiB block cache, 1 GiB value-log files); toolstream keeps an audit
// log and turn records of a few KiB to a few hundred KiB each, so the store
// is shrunk to tens of MiB.
const (
	// memTableSize bounds one memtable; badger allocates it up front
	// (about 11 MiB with its batch headroom), so it is most of an idle
	// store's memory. badger caps a transaction at 15% of it (1.2 MiB
	// here): above the 1 MiB largest value of memory mode, where values
	// count in full, so the largest turn record and its index entries
	// still fit one transaction.
	memTableSize = 8 << 20
	// numMemtables: one taking writes, one being flushed.
	numMemtables = 2
	// blockCacheSize caches decompressed table blocks for reads. Required
	// non-zero because tables on disk are Snappy-compressed; memory mode
	// compresses nothing and has none (see Open).
	blockCacheSize = 16 << 20
	// valueLogFileSize is the size of one value-log file. GC rewrites
	// whole files, so smaller files give disk space back sooner.
	valueLogFileSize = 64 << 20
	// valueThreshold: on disk, values at least this large go to the value
	// log and count only as a pointer toward the transaction limit, so a
	// turn with large tool results still fits in one transaction; smaller
	// values (audit records) stay in the LSM tree, where expiry reclaims
	// them through compaction. Not applied in memory mode: there badger
	// refuses values above the threshold, so it stays at badger's 1 MiB
	// maximum.
	valueThreshold = 64 << 10
	// numCompactors is badger's minimum for a compacting store.
	numCompactors = 2
	// maxInMemoryValue is badger's largest value in memory mode, where
	// values over its value threshold (at most 1 MiB) are refused.
	maxInMemoryValue = 1 << 20
)

// ErrLocked is wrapped by the error of [Open] when another process holds
// the directory. Its message says what to do about it.
var ErrLocked = errors.New("badger: storage directory locked by another process")

// lockedMessage is the sentence badger puts in its lock error on every
// platform (dir_unix.go, dir_windows.go). It is matched as text because
// badger wraps the flock error with y.Wrapf, which formats it with %+v
// rather than %w outside its debug builds (y/error.go), so errors.Is
// cannot reach the syscall error beneath.
const lockedMessage = "Another process is using this Badger database"

// lockedError is [Open]'s error for a directory in use.
type lockedError struct{ path string }

func (e lockedError) Error() string {
	return fmt.Sprintf("storage.path %s is in use by another toolstream process; stop it or set storage.path to another directory", e.path)
}

func (lockedError) Unwrap() error { return ErrLocked }

// Options configure a [DB]. The zero value is ready to use.
type Options struct {
	// Logger receives badger's own warnings and errors, and value-log GC
	// failures. Badger's info and debug lines are dropped. Nil discards.
	Logger *slog.Logger
	// Now is the clock for times a record leaves zero (StartedAt,
	// CreatedAt, DecidedAt, UpdatedAt), for the auto-mode memory and for
	// whether a runtime key is past its ExpiresAt. Nil means time.Now.
	// badger checks expiry against the real clock, so a Now in the past
	// writes entries that are already expired, which is what tests use
	// it for; a Now in the future ends runtime keys that badger still
	// holds.
	Now func() time.Time
	// GCInterval is the period of value-log GC. Zero means
	// [DefaultGCInterval]. Ignored in memory mode, which has no value log.
	GCInterval time.Duration
	// MinFree is the free space, beyond the size of the store's tables,
	// that the storage's filesystem keeps: writes below it are refused
	// with [store.ErrNoSpace], and so is Open (see space.go for why).
	// Zero means [DefaultMinFree]. Ignored in memory mode.
	MinFree uint64
}

// DB is the badger backend of [store.Store]. It is safe for concurrent
// use. Only one process may open a directory at a time (badger locks it);
// memory mode writes nothing to disk. Close it when done: an open DB keeps
// badger's goroutines running.
type DB struct {
	db             *dgbadger.DB
	log            *slog.Logger
	now            func() time.Time
	turnRetention  time.Duration
	auditRetention time.Duration
	maxValue       int // largest value badger takes in this mode
	space          guard

	// mu orders every operation before Close: operations hold it shared,
	// Close exclusively, so no transaction runs while badger closes.
	mu     sync.RWMutex
	closed bool

	// keyWrites serializes the writes of runtime keys. badger's
	// transactions are optimistic: of n concurrent writers of one key,
	// one commits per round and update gives up after updateAttempts, so
	// a burst of admin updates of one key could fail for nothing but the
	// race. Key writes are rare; waiting costs nothing.
	keyWrites sync.Mutex
	// usageWrites serializes the additions to usage rows, for the same
	// reason: every turn of a key ends in one, and a busy key's turns
	// would race on its day's row.
	usageWrites sync.Mutex

	// feed tells subscribers of this process's changes: an embedded
	// database has no other writer.
	feed store.Hub

	// lastKey is the hash of the key id the last stored response was
	// looked up or saved under (see keyHash).
	lastKey atomic.Pointer[keyHashOf]

	stopGC chan struct{}  // closed by Close; nil in memory mode
	gcDone sync.WaitGroup // the GC goroutine
}

// Open opens (creating if needed) the badger database at cfg.Path, or an
// empty in-memory one when cfg.InMemory is set, in which case cfg.Path is
// ignored. cfg.Backend is not looked at: the caller chose this backend.
// Zero retentions mean the config defaults. On disk it starts a value-log
// GC goroutine that [DB.Close] stops. A directory held by another process
// fails with an error wrapping [ErrLocked].
func Open(cfg config.Storage, opts Options) (*DB, error) {
	defaults := config.Default().Storage
	d := &DB{
		log:            opts.Logger,
		now:            opts.Now,
		turnRetention:  cmpOr(cfg.TurnRetention, defaults.TurnRetention),
		auditRetention: cmpOr(cfg.AuditRetention, defaults.AuditRetention),
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.now == nil {
		d.now = time.Now
	}

	var bopts dgbadger.Options
	if cfg.InMemory {
		// Tables in memory mode are not compressed. Compressing saves
		// disk, and there is none: it would cost CPU on every flush of a
		// memtable (over a hundredth of a whole streamed answer's, when
		// it is stored) to shrink buffers that live only as long as the
		// process, whose size storage.turn_retention bounds anyway.
		// Uncompressed blocks are read where they lie, so no block cache
		// either: it would only hold second copies of them.
		bopts = dgbadger.DefaultOptions("").WithInMemory(true).
			WithCompression(options.None).
			WithBlockCacheSize(0)
		d.maxValue = maxInMemoryValue
	} else {
		if cfg.Path == "" {
			return nil, errors.New("opening storage: storage.path is empty")
		}
		d.space = guard{path: cfg.Path, minFree: cmp.Or(opts.MinFree, DefaultMinFree)}
		if err := d.space.checkOpen(); err != nil {
			return nil, fmt.Errorf("opening storage %s: %w; free some space there or move storage.path", cfg.Path, err)
		}
		bopts = dgbadger.DefaultOptions(cfg.Path).
			WithBlockCacheSize(blockCacheSize).
			WithValueLogFileSize(valueLogFileSize).
			WithValueThreshold(valueThreshold).
			WithSyncWrites(true) // see Durability in the package doc
		d.maxValue = valueLogFileSize
	}
	bopts = bopts.
		WithLogger(badgerLogger{d.log}).
		WithMemTableSize(memTableSize).
		WithNumMemtables(numMemtables).
		WithNumCompactors(numCompactors).
		// badger's expvar metrics are process-global and not served;
		// toolstream exports its own Prometheus metrics.
		WithMetricsEnabled(false)

	db, err := dgbadger.Open(bopts)
	switch {
	case err == nil:
	case cfg.InMemory:
		return nil, fmt.Errorf("opening in-memory storage: %w", err)
	case strings.Contains(err.Error(), lockedMessage):
		return nil, lockedError{cfg.Path}
	default:
		return nil, fmt.Errorf("opening storage %s: %w", cfg.Path, err)
	}
	d.db = db

	if !cfg.InMemory {
		interval := cmpOr(opts.GCInterval, DefaultGCInterval)
		d.stopGC = make(chan struct{})
		d.gcDone.Go(func() { d.gcLoop(interval) })
	}
	return d, nil
}

// Close stops value-log GC, waits for running operations and closes the
// database. Calling it again does nothing and returns nil.
func (d *DB) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	d.feed.Close()
	if d.stopGC != nil {
		close(d.stopGC)
		d.gcDone.Wait()
	}
	if err := d.room(0); err != nil {
		// badger's Close flushes the memtable into a new table, written
		// through a mapping (space.go): on a full disk that faults and
		// the process dies on its way out. The margin writes keep is
		// what the flush needs. The memtable's log is durable
		// (SyncWrites), so it is left for the next Open to replay, as
		// after a crash; the process exiting releases the directory.
		d.log.Warn("storage closed without flushing its memtable; the next start replays its log",
			"component", "storage", "error", err)
		return nil
	}
	if err := d.db.Close(); err != nil {
		return fmt.Errorf("closing storage: %w", err)
	}
	return nil
}

// Now is the clock the records are stamped and expired by (Options.Now);
// [store.Checked] fills a record's zero times with it.
func (d *DB) Now() time.Time { return d.now() }

// Ready reports whether the store can serve (for /readyz): [store.ErrClosed]
// after Close; an error wrapping [store.ErrNoSpace] while its filesystem is
// below the free-space margin (see space.go), and one wrapping
// [store.ErrWriteFailed] for a minute after a write failed; nil otherwise.
func (d *DB) Ready() error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed || d.db.IsClosed() {
		return store.ErrClosed
	}
	if err := d.room(0); err != nil {
		return err
	}
	return d.space.recent(time.Now())
}

// WriteFailures counts the writes that failed for the storage's sake
// (see [store.Lifecycle.WriteFailures]).
func (d *DB) WriteFailures() uint64 { return d.space.failures.Load() }

// cmpOr is d, or def when d is not positive.
func cmpOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

var _ store.Store = (*DB)(nil)
