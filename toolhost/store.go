package toolhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/config"
)

// Key layout. Every record type owns one prefix, so a prefix iteration never
// crosses into another type's keys, and a new type slots in beside these
// without touching them. Keys and values never hold secrets: ids, hashes,
// upstream and model names only (SPEC §9).
//
//	turn/<turn id>                  → TurnRecord JSON                 TTL storage.turn_retention
//	turnkey/<lookup key>            → turn id (raw bytes)             same expiry as its record
//	mode/<upstream>\x00<model>      → modeRecord JSON                 TTL textFallbackTTL
//
// Reserved for the record types still to come (SPEC §8):
//
//	audit/<8-byte big-endian unix nanos><call id>   time-ordered, so a reverse
//	                                                prefix iteration serves
//	                                                GET /admin/calls newest first
//	call/<call id>                  → audit key (lookup by id)
//	tool/<name>                     → runtime-registered tool
//	action/<id>                     → approval
const (
	prefixTurn    = "turn/"
	prefixTurnKey = "turnkey/"
	prefixMode    = "mode/"
)

// Sizing. badger's defaults are for a database server (5 × 64 MiB memtables,
// a 256 MiB block cache, 1 GiB value-log files); toolstream keeps an audit
// log and turn records of a few KiB to a few hundred KiB each, so the store
// is shrunk to tens of MiB.
const (
	// storeMemTableSize bounds one memtable; badger allocates it up front
	// (about 11 MiB with its batch headroom), so it is most of an idle
	// store's memory. badger caps a transaction at 15% of it (1.2 MiB
	// here): above the 1 MiB largest value of memory mode, where values
	// count in full, so the largest turn record and its index entries
	// still fit one transaction.
	storeMemTableSize = 8 << 20
	// storeNumMemtables: one taking writes, one being flushed.
	storeNumMemtables = 2
	// storeBlockCacheSize caches decompressed table blocks for reads.
	// Required non-zero because tables are Snappy-compressed.
	storeBlockCacheSize = 16 << 20
	// storeValueLogFileSize is the size of one value-log file. GC rewrites
	// whole files, so smaller files give disk space back sooner.
	storeValueLogFileSize = 64 << 20
	// storeValueThreshold: on disk, values at least this large go to the
	// value log and count only as a pointer toward the transaction limit,
	// so a turn with large tool results still fits in one transaction;
	// smaller values (audit records) stay in the LSM tree, where expiry
	// reclaims them through compaction. Not applied in memory mode: there
	// badger refuses values above the threshold, so it stays at badger's
	// 1 MiB maximum.
	storeValueThreshold = 64 << 10
	// storeNumCompactors is badger's minimum for a compacting store.
	storeNumCompactors = 2
)

// DefaultGCInterval is how often value-log GC runs when
// [StoreOptions.GCInterval] is zero.
const DefaultGCInterval = 5 * time.Minute

// gcDiscardRatio rewrites a value-log file when half of it is garbage
// (badger's recommendation: a lifetime write amplification of 2).
const gcDiscardRatio = 0.5

// updateAttempts bounds the retries of a transaction that lost a race
// ([badger.ErrConflict]).
const updateAttempts = 4

// Limits of one entry.
const (
	// maxStoreKey bounds a key. badger allows 65,000 bytes; toolstream's
	// keys are ids and hashes, so anything near that is an upstream
	// sending garbage ids.
	maxStoreKey = 4 << 10
	// maxInMemoryValue is badger's largest value in memory mode, where
	// values over its value threshold (at most 1 MiB) are refused.
	maxInMemoryValue = 1 << 20
)

var (
	// ErrStoreClosed is returned by every [Store] method called after
	// [Store.Close].
	ErrStoreClosed = errors.New("toolhost: store closed")
	// ErrTooLarge is returned when a record's key or value is over the
	// store's limits: 4 KiB for a key; for a value 1 MiB in memory mode
	// and 64 MiB on disk.
	ErrTooLarge = errors.New("toolhost: record too large for the store")
)

// StoreOptions configure a [Store]. The zero value is ready to use.
type StoreOptions struct {
	// Logger receives badger's own warnings and errors, and value-log GC
	// failures. Badger's info and debug lines are dropped. Nil discards.
	Logger *slog.Logger
	// Now is the clock expiry times are computed from. Nil means
	// time.Now. badger itself checks expiry against the real clock, so a
	// Now in the past writes entries that are already expired — which is
	// what tests use it for.
	Now func() time.Time
	// GCInterval is the period of value-log GC. Zero means
	// [DefaultGCInterval]. Ignored in memory mode, which has no value log.
	GCInterval time.Duration
}

// Store is toolstream's embedded database (SPEC §8): turn records for
// history stitching, the auto-mode memory and, later, the audit log,
// runtime tools and approvals, all in one badger database.
//
// It is safe for concurrent use. Only one process may open a directory at a
// time (badger locks it); memory mode writes nothing to disk. Close it when
// done: an open store keeps badger's goroutines running.
type Store struct {
	db            *badger.DB
	log           *slog.Logger
	now           func() time.Time
	turnRetention time.Duration
	maxValue      int // largest value badger takes in this mode

	// mu orders every operation before Close: operations hold it shared,
	// Close exclusively, so no transaction runs while badger closes.
	mu     sync.RWMutex
	closed bool

	stopGC chan struct{}  // closed by Close; nil in memory mode
	gcDone sync.WaitGroup // the GC goroutine
}

// OpenStore opens (creating if needed) the badger database at cfg.Path, or
// an empty in-memory one when cfg.InMemory is set, in which case cfg.Path is
// ignored. A zero TurnRetention means the config default. On disk it starts
// a value-log GC goroutine that [Store.Close] stops.
func OpenStore(cfg config.Storage, opts StoreOptions) (*Store, error) {
	s := &Store{
		log:           opts.Logger,
		now:           opts.Now,
		turnRetention: cfg.TurnRetention,
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.turnRetention <= 0 {
		s.turnRetention = config.Default().Storage.TurnRetention
	}

	var bopts badger.Options
	if cfg.InMemory {
		bopts = badger.DefaultOptions("").WithInMemory(true)
		s.maxValue = maxInMemoryValue
	} else {
		if cfg.Path == "" {
			return nil, errors.New("opening store: storage.path is empty")
		}
		bopts = badger.DefaultOptions(cfg.Path).
			WithValueLogFileSize(storeValueLogFileSize).
			WithValueThreshold(storeValueThreshold)
		s.maxValue = storeValueLogFileSize
	}
	bopts = bopts.
		WithLogger(badgerLogger{s.log}).
		WithMemTableSize(storeMemTableSize).
		WithNumMemtables(storeNumMemtables).
		WithBlockCacheSize(storeBlockCacheSize).
		WithNumCompactors(storeNumCompactors).
		// badger's expvar metrics are process-global and not served;
		// toolstream exports its own Prometheus metrics.
		WithMetricsEnabled(false)

	db, err := badger.Open(bopts)
	if err != nil {
		if cfg.InMemory {
			return nil, fmt.Errorf("opening in-memory store: %w", err)
		}
		return nil, fmt.Errorf("opening store %s: %w", cfg.Path, err)
	}
	s.db = db

	if !cfg.InMemory {
		interval := opts.GCInterval
		if interval <= 0 {
			interval = DefaultGCInterval
		}
		s.stopGC = make(chan struct{})
		s.gcDone.Go(func() { s.gcLoop(interval) })
	}
	return s, nil
}

// Close stops value-log GC, waits for running operations and closes the
// database. Calling it again does nothing and returns nil.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.stopGC != nil {
		close(s.stopGC)
		s.gcDone.Wait()
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("closing store: %w", err)
	}
	return nil
}

// Ready reports whether the store can serve (for /readyz): nil while open,
// [ErrStoreClosed] after Close.
func (s *Store) Ready() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed || s.db.IsClosed() {
		return ErrStoreClosed
	}
	return nil
}

// gcLoop runs a value-log GC pass every interval until Close.
func (s *Store) gcLoop(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.stopGC:
			return
		case <-t.C:
			if _, err := s.gcPass(); err != nil {
				s.log.Warn("value-log gc", "component", "store", "error", err)
			}
		}
	}
}

// gcPass rewrites value-log files while badger finds one worth rewriting,
// and returns how many it rewrote. A pass ends without error on
// [badger.ErrNoRewrite] (nothing left to reclaim) and on
// [badger.ErrRejected] (a GC already running, or the database closing); it
// also ends when Close begins.
func (s *Store) gcPass() (int, error) {
	for n := 0; ; n++ {
		select {
		case <-s.stopGC:
			return n, nil
		default:
		}
		err := s.db.RunValueLogGC(gcDiscardRatio)
		switch {
		case err == nil:
			continue
		case errors.Is(err, badger.ErrNoRewrite), errors.Is(err, badger.ErrRejected):
			return n, nil
		default:
			return n, err
		}
	}
}

// view runs fn in a read-only transaction.
func (s *Store) view(ctx context.Context, fn func(txn *badger.Txn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrStoreClosed
	}
	return s.db.View(fn)
}

// update runs fn in a read-write transaction and commits it, running it
// again (fn must be repeatable) when the commit lost a race to another
// writer of a key fn read.
func (s *Store) update(ctx context.Context, fn func(txn *badger.Txn) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrStoreClosed
	}
	var err error
	for range updateAttempts {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		err = s.db.Update(fn)
		if !errors.Is(err, badger.ErrConflict) {
			return err
		}
	}
	return err
}

// expiresAt is the badger expiry (Unix seconds) of an entry written now
// with the given TTL. A time before 1970 would wrap around in badger's
// unsigned field and never expire, so it is clamped to the first second,
// which is already past.
func (s *Store) expiresAt(ttl time.Duration) uint64 {
	at := s.now().Add(ttl).Unix()
	if at < 1 {
		return 1
	}
	return uint64(at)
}

// storeKey joins a record type's prefix and the parts of its key.
func storeKey(prefix string, parts ...string) []byte {
	n := len(prefix)
	for _, p := range parts {
		n += len(p)
	}
	k := make([]byte, 0, n)
	k = append(k, prefix...)
	for _, p := range parts {
		k = append(k, p...)
	}
	return k
}

// put writes val under key, expiring at the given Unix second (0: never).
// Sizes are checked here rather than left to badger, whose errors for an
// oversized key or value carry a hex dump of it — conversation text that
// must not reach a log.
func (s *Store) put(txn *badger.Txn, key, val []byte, expiresAt uint64) error {
	if len(key) > maxStoreKey {
		return fmt.Errorf("%w: key of %d bytes, limit %d", ErrTooLarge, len(key), maxStoreKey)
	}
	if len(val) > s.maxValue {
		return fmt.Errorf("%w: value of %d bytes, limit %d", ErrTooLarge, len(val), s.maxValue)
	}
	e := badger.NewEntry(key, val)
	e.ExpiresAt = expiresAt
	return txn.SetEntry(e)
}

// putJSON writes v as JSON under key, expiring at the given Unix second.
func (s *Store) putJSON(txn *badger.Txn, key []byte, v any, expiresAt uint64) error {
	val, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.put(txn, key, val, expiresAt)
}

// getRaw returns a copy of the value under key; false when it is missing
// or expired.
func getRaw(txn *badger.Txn, key []byte) ([]byte, bool, error) {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	val, err := item.ValueCopy(nil)
	if err != nil {
		return nil, false, err
	}
	return val, true, nil
}

// getJSON decodes the JSON value under key into v; false when it is missing
// or expired.
func getJSON(txn *badger.Txn, key []byte, v any) (bool, error) {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := item.Value(func(val []byte) error { return json.Unmarshal(val, v) }); err != nil {
		return false, err
	}
	return true, nil
}

// badgerLogger passes badger's warnings and errors to slog and drops its
// info and debug lines (it prints several on every open and close).
type badgerLogger struct{ log *slog.Logger }

func (l badgerLogger) Errorf(format string, args ...any) {
	l.log.Error(badgerMessage(format, args), "component", "badger")
}

func (l badgerLogger) Warningf(format string, args ...any) {
	l.log.Warn(badgerMessage(format, args), "component", "badger")
}

func (badgerLogger) Infof(string, ...any)  {}
func (badgerLogger) Debugf(string, ...any) {}

// badgerMessage formats a badger log line without its trailing newline.
func badgerMessage(format string, args []any) string {
	return strings.TrimRight(fmt.Sprintf(format, args...), "\n")
}

var _ badger.Logger = badgerLogger{}
