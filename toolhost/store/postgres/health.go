package postgres

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

// troubleWindow is how long /readyz reports a failed write, as in the
// badger backend: the store becomes ready again on its own once writes
// stop failing, without waiting for a write that a load balancer sending
// no traffic would never make.
const troubleWindow = time.Minute

// health is what [DB.Ready] reports: the last ping's outcome and the
// recent write failures.
type health struct {
	failures    atomic.Uint64
	lastFailure atomic.Int64 // Unix nanoseconds of the latest

	mu      sync.Mutex
	pingErr error // nil while the database answers
}

// noteWrite counts err when it is storage trouble: not a caller's
// mistake, and not a caller who left.
func (h *health) noteWrite(ctx context.Context, err error) {
	if err == nil || isStoreError(err) || ctx.Err() != nil {
		return
	}
	h.failures.Add(1)
	h.lastFailure.Store(time.Now().UnixNano())
	if isUnavailable(err) {
		h.setPing(err)
	}
}

// setPing records whether the database answered (err nil) or not.
func (h *health) setPing(err error) {
	h.mu.Lock()
	h.pingErr = err
	h.mu.Unlock()
}

// ready is Ready's answer at now.
func (h *health) ready(now time.Time) error {
	h.mu.Lock()
	perr := h.pingErr
	h.mu.Unlock()
	if perr != nil {
		if isUnavailable(perr) {
			return perr
		}
		return fmt.Errorf("%w: %w", store.ErrUnavailable, perr)
	}
	last := h.lastFailure.Load()
	if last == 0 {
		return nil
	}
	if ago := now.Sub(time.Unix(0, last)); ago <= troubleWindow {
		return fmt.Errorf("%w: a write failed %s ago (see the log)", store.ErrWriteFailed, ago.Round(time.Second))
	}
	return nil
}

// pingLoop pings the database every PingInterval until Close, so Ready
// turns within a second or two of an outage, and back after it. A ping
// is one round trip on an idle connection: cheap enough for every
// second.
func (d *DB) pingLoop() {
	t := time.NewTicker(d.opts.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(d.ctx, min(d.opts.OpTimeout, max(d.opts.PingInterval, DefaultConnectTimeout)))
		err := d.pool.Ping(ctx)
		cancel()
		if d.ctx.Err() != nil {
			return
		}
		d.health.setPing(unavailable(d.ctx, err))
	}
}
