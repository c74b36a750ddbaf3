package badger

import (
	"context"
	"errors"
	"sync"
	"time"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/toolhost/store"
)

// A read-write transaction's start waits until badger's own goroutines
// have marked every earlier commit done (its read timestamp must see
// them). On a busy process those goroutines wait in the scheduler's queue
// behind every stream that has a chunk to forward: a tool call's started
// record, written before its webhook request may go out, waited up to a
// millisecond there (execution trace of serve under compare's paced c=64,
// one CPU) for commits it has nothing to do with.
//
// StartCall writes a record under a key no one has written (a fresh id)
// and reads only keys that id names, so a snapshot a little older than
// now reads the same and commits the same; badger's conflict check still
// refuses it should one of those keys have been written since. StartCall
// thus takes a transaction opened beforehand, in the background, and the
// next one is opened when it is taken. Four are kept: opening one waits
// in the same queue, and on a busy process calls come closer together
// than that (compare c64p on a machine busy with other work: with two
// kept, 69-88% of StartCalls found one ready; with four, 94-98%). A spare
// left untaken is discarded after spareMaxAge: an open transaction holds
// back badger's cleanup of the commits made since it began.
const (
	spareMaxAge = time.Second
	spareCount  = 4
)

// spareTxn holds the transactions opened ahead for StartCall.
type spareTxn struct {
	mu      sync.Mutex
	txns    []*dgbadger.Txn // oldest first
	filling bool            // a goroutine is opening more
}

// take returns the oldest spare transaction, or nil when none is ready.
func (s *spareTxn) take() *dgbadger.Txn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.txns) == 0 {
		return nil
	}
	txn := s.txns[0]
	s.txns = append(s.txns[:0], s.txns[1:]...)
	return txn
}

// fillSpare opens spare transactions in the background up to spareCount,
// unless a goroutine is at it already.
func (d *DB) fillSpare() {
	s := &d.spare
	s.mu.Lock()
	if len(s.txns) >= spareCount || s.filling {
		s.mu.Unlock()
		return
	}
	s.filling = true
	s.mu.Unlock()
	go func() {
		d.mu.RLock()
		defer d.mu.RUnlock()
		for {
			var txn *dgbadger.Txn
			if !d.closed {
				txn = d.db.NewTransaction(true) // waits, here and not in StartCall
				time.AfterFunc(spareMaxAge, func() { d.dropSpare(txn) })
			}
			s.mu.Lock()
			if txn != nil {
				s.txns = append(s.txns, txn)
			}
			if txn == nil || len(s.txns) >= spareCount {
				s.filling = false
				s.mu.Unlock()
				return
			}
			s.mu.Unlock()
		}
	}()
}

// dropSpare discards txn if it is still a spare, untaken.
func (d *DB) dropSpare(txn *dgbadger.Txn) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	s := &d.spare
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.closed {
		return
	}
	for i, t := range s.txns {
		if t == txn {
			s.txns = append(s.txns[:i], s.txns[i+1:]...)
			txn.Discard()
			return
		}
	}
}

// closeSpare discards the spare transactions; Close calls it, holding mu,
// before badger closes.
func (d *DB) closeSpare() {
	for txn := d.spare.take(); txn != nil; txn = d.spare.take() {
		txn.Discard()
	}
}

// updateNew is update for a transaction that writes only keys no one has
// written yet, and reads no other: it runs on a spare transaction when
// one is ready (see spareTxn), else as update does.
func (d *DB) updateNew(ctx context.Context, fn func(txn *dgbadger.Txn) error) error {
	defer d.fillSpare()
	ran, err := d.onSpare(ctx, fn)
	if !ran || errors.Is(err, dgbadger.ErrConflict) {
		return d.update(ctx, fn)
	}
	return err
}

// onSpare runs fn on a spare transaction and commits it, under update's
// rules; ran is false when no spare was ready.
func (d *DB) onSpare(ctx context.Context, fn func(txn *dgbadger.Txn) error) (ran bool, err error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return true, store.ErrClosed
	}
	txn := d.spare.take()
	if txn == nil {
		return false, nil
	}
	defer txn.Discard()
	defer func() { d.space.noteWrite(err, time.Now()) }()
	if err := d.room(0); err != nil {
		return true, err
	}
	if err := ctx.Err(); err != nil {
		return true, err
	}
	if err := fn(txn); err != nil {
		return true, err
	}
	return true, txn.Commit()
}
