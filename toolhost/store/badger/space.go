package badger

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	dgbadger "github.com/dgraph-io/badger/v4"
	"github.com/dustin/go-humanize"

	"github.com/toolstream/toolstream/toolhost/store"
)

// Full disks. badger writes its write-ahead log (the memtables' .mem
// files), its value log and its tables by copying into files it maps
// into memory, sized up front with ftruncate and so sparse (memtable.go
// writeEntry, ristretto z.OpenMmapFile). A page that the filesystem cannot
// back when it is first touched is not an error badger can return: the
// kernel sends SIGBUS and the Go runtime ends the whole process (badger
// issues #1682 and #1801, closed without a fix; v4 has no option that
// writes with write(2) instead, and none that preallocates). On tmpfs even
// reading a never-written page of the log faults, so a restart on the
// full disk died in the log replay of badger.Open.
//
// A panic cannot be recovered either: the fault happens on badger's own
// writer goroutine, where debug.SetPanicOnFault does not reach. So the
// store never lets badger run out of room: every write first asks the
// filesystem (statfs) how much is free, and is refused with
// [store.ErrNoSpace] below a margin — [DefaultMinFree] for a memtable
// flush and the pages concurrent commits fill, plus the size of the
// store's tables, since a compaction writes its new tables before it
// deletes the old ones, plus the write's own large values. Open refuses
// to start below the same margin. A write refused this way fails its tool
// call with EXECUTION_FAILED; nothing runs.

// DefaultMinFree is the free space, beyond the store's tables, below which
// writes are refused when [Options.MinFree] is zero.
const DefaultMinFree = 64 << 20

// troubleWindow is how long /readyz reports a failed write: the store
// stays unready while writes keep failing and becomes ready again on its
// own once they stop, without waiting for a write that a load balancer
// sending no traffic would never make.
const troubleWindow = time.Minute

// spaceError is a write (or Open) refused for lack of free space. Its
// message names no path: /readyz, open to anyone, shows it.
type spaceError struct{ free, need uint64 }

func (e spaceError) Error() string {
	return fmt.Sprintf("the storage filesystem has %s free, less than the %s toolstream keeps free there",
		humanize.IBytes(e.free), humanize.IBytes(e.need))
}

func (spaceError) Unwrap() error { return store.ErrNoSpace }

// guard is a DB's view of its filesystem and of its failed writes.
type guard struct {
	path    string // "" in memory mode: nothing to check
	minFree uint64
	// failures counts writes that failed for the storage's sake (see
	// storageTrouble); lastFailure is the Unix nanosecond of the latest.
	failures    atomic.Uint64
	lastFailure atomic.Int64
}

// room returns a [spaceError] when the filesystem of the store has less
// than minFree + tables + extra bytes free. A filesystem whose free space
// cannot be read (a platform without statfs) is not checked.
func (g *guard) room(tables int64, extra int) error {
	if g.path == "" {
		return nil
	}
	free, ok := freeBytes(g.path)
	if !ok {
		return nil
	}
	need := g.minFree + uint64(max(tables, 0)) + uint64(max(extra, 0))
	if free < need {
		return spaceError{free: free, need: need}
	}
	return nil
}

// noteWrite counts err when it is storage trouble: a refused or failed
// write, not a caller's mistake (a record too large, one that does not
// exist or already does, an action decided already) or a caller who
// left.
func (g *guard) noteWrite(err error, now time.Time) {
	if !storageTrouble(err) {
		return
	}
	g.failures.Add(1)
	g.lastFailure.Store(now.UnixNano())
}

// recent reports a write failure within troubleWindow of now.
func (g *guard) recent(now time.Time) error {
	last := g.lastFailure.Load()
	if last == 0 {
		return nil
	}
	ago := now.Sub(time.Unix(0, last))
	if ago > troubleWindow {
		return nil
	}
	return fmt.Errorf("%w: a write failed %s ago (see the log)", store.ErrWriteFailed, ago.Round(time.Second))
}

func storageTrouble(err error) bool {
	switch {
	case err == nil,
		errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrDecided),
		errors.Is(err, store.ErrTooLarge), errors.Is(err, store.ErrInvalidKey),
		errors.Is(err, store.ErrExists),
		errors.Is(err, store.ErrClosed),
		errors.Is(err, dgbadger.ErrConflict),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	}
	return true
}

// room is [guard.room] for the open store, with its tables' size; memory
// mode has nothing to check.
func (d *DB) room(extra int) error {
	if d.space.path == "" {
		return nil
	}
	return d.space.room(d.tableBytes(), extra)
}

// tableBytes is the size of the store's tables, as badger's level
// controller holds them; [dirTableBytes] counts them before Open.
func (d *DB) tableBytes() int64 {
	var n int64
	for _, t := range d.db.Tables() {
		n += int64(t.OnDiskSize)
	}
	return n
}

func dirTableBytes(dir string) int64 {
	var n int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".sst") {
			continue
		}
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// checkOpen refuses to open a store on a filesystem below the margin;
// badger.Open would fault in its log replay or on its first write. The
// directory is created first, as badger would, so that a new store's
// filesystem is the one asked.
func (g *guard) checkOpen() error {
	if err := os.MkdirAll(g.path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return g.room(dirTableBytes(filepath.Clean(g.path)), 0)
}
