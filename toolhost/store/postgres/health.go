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

	// down is set while the database does not answer: by a failed ping,
	// or an operation that could not reach it; a ping that succeeds
	// clears it. Only setDown changes it.
	down atomic.Bool

	// mu orders setDown with watch. outage is canceled, with
	// errNoAnswer, when down is set; a fresh one follows once it clears.
	mu        sync.Mutex
	outage    context.Context
	endOutage context.CancelCauseFunc
}

// errNoAnswer is the error of every operation while the database does
// not answer. No detail: /readyz, open to anyone, shows this message, and
// the driver's errors name the database's host and user. The log has
// them.
var errNoAnswer = fmt.Errorf("%w: it did not answer the last ping (see the log)", store.ErrUnavailable)

// setDown records whether the database answers, and reports what was
// recorded before. Going down cancels the operations that run: the pings
// say no answer is coming, so none of them waits out its own bound for
// one — a turn that needs several would otherwise wait for each in turn.
func (h *health) setDown(down bool) (was bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	was = h.down.Swap(down)
	switch {
	case down && !was && h.endOutage != nil:
		h.endOutage(errNoAnswer)
	case !down && was:
		h.outage, h.endOutage = nil, nil // the next watch makes a fresh one
	}
	return was
}

// watch is ctx, canceled also when the database is found down; stop
// releases it.
func (h *health) watch(ctx context.Context) (context.Context, context.CancelFunc) {
	h.mu.Lock()
	if h.outage == nil {
		h.outage, h.endOutage = context.WithCancelCause(context.Background())
		if h.down.Load() {
			h.endOutage(errNoAnswer)
		}
	}
	outage := h.outage
	h.mu.Unlock()
	octx, cancel := context.WithCancelCause(ctx)
	unwatch := context.AfterFunc(outage, func() { cancel(context.Cause(outage)) })
	return octx, func() {
		unwatch()
		cancel(nil)
	}
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
		h.setDown(true)
	}
}

// ready is Ready's answer at now.
func (h *health) ready(now time.Time) error {
	if err := h.reachable(); err != nil {
		return err
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
		if err != nil && d.saturated() {
			// Every connection is busy serving statements: the
			// database answers, the ping only found no connection free
			// in time. Refusing turns for that would turn load into an
			// outage.
			continue
		}
		was := d.health.setDown(err != nil)
		switch {
		case err != nil && !was:
			d.log.Warn("storage database unreachable", "component", "storage", "error", err)
		case err == nil && was:
			d.log.Info("storage database reachable again", "component", "storage")
		}
	}
}

// saturated reports whether every connection the pool may open is in use.
func (d *DB) saturated() bool {
	st := d.pool.Stat()
	return st.AcquiredConns() >= st.MaxConns()
}

// reachable is [errNoAnswer] while the database does not answer, else
// nil.
func (h *health) reachable() error {
	if h.down.Load() {
		return errNoAnswer
	}
	return nil
}
