package toolhost

import (
	"context"
	"log/slog"

	"github.com/toolstream/toolstream/toolhost/store"
)

// Feed is the storage's change feed ([store.ChangeFeed.Subscribe]).
type Feed interface {
	Subscribe(f func(store.Change)) (stop func())
}

// Follow keeps the host in step with what changes in the store, through
// this process or any other sharing it: a decided action wakes the call
// waiting on it here, and runtime tools put or deleted elsewhere are
// registered or removed here (and /mcp clients told, through
// [Host.Watch]). A resync (the feed may have missed changes) wakes every
// waiting call to re-read its action and reloads the runtime tools. Call
// it after [Host.LoadRuntimeTools]; stop before closing the store.
func (h *Host) Follow(feed Feed) (stop func()) {
	return feed.Subscribe(func(c store.Change) {
		switch c.Kind {
		case store.ChangeAction:
			h.Wake(c.ID)
		case store.ChangeTools:
			h.resyncRuntime()
		case store.ChangeResync:
			h.wakeAll()
			h.resyncRuntime()
		}
	})
}

// resyncRuntime reloads the runtime tools from the store. A failure is
// logged; the next change or resync tries again.
func (h *Host) resyncRuntime() {
	if h.rt.store == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), bookkeepingTimeout)
	defer cancel()
	n, err := h.syncRuntime(ctx)
	if err != nil {
		h.log.LogAttrs(ctx, slog.LevelWarn, "reloading runtime tools failed", slog.String("error", err.Error()))
		return
	}
	if n.changed > 0 {
		h.log.LogAttrs(ctx, slog.LevelInfo, "runtime tools changed in storage",
			slog.Int("count", n.registered), slog.Int("skipped", n.skipped))
	}
}

// wakeAll wakes every call waiting for an approval in this process, to
// read its action again.
func (h *Host) wakeAll() {
	h.waiters.mu.Lock()
	defer h.waiters.mu.Unlock()
	for _, ch := range h.waiters.m {
		poke(ch)
	}
}
