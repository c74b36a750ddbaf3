package toolhost

import (
	"sync"

	"github.com/toolstream/toolstream/toolhost/mask"
)

// watchers are the functions told that the set of tools changed. MCP
// clients of toolstream's own /mcp endpoint keep a copy of the tool list;
// they learn of a reload, a runtime registration or an MCP server going
// up or down only if someone tells them.
type watchers struct {
	mu   sync.Mutex
	next int
	fns  map[int]func()
}

// Watch calls f after every change of the registered tools (config
// reload, runtime tools, an MCP server's tools coming or going) until the
// returned stop is called. f runs on the changing goroutine with the
// registry's writer lock held: it may read [Host.Tools] but must not
// register or remove tools, and must not block for long.
func (h *Host) Watch(f func()) (stop func()) {
	w := &h.watchers
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fns == nil {
		w.fns = map[int]func(){}
	}
	id := w.next
	w.next++
	w.fns[id] = f
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.fns, id)
	}
}

// publish stores the next registry and tells the watchers. Callers hold
// h.mu, so watchers hear of changes in the order they were made.
func (h *Host) publish(next *registry) {
	next.mask = mask.New(next.secretsOf())
	h.reg.Store(next)
	h.watchers.mu.Lock()
	fns := make([]func(), 0, len(h.watchers.fns))
	for _, f := range h.watchers.fns {
		fns = append(fns, f)
	}
	h.watchers.mu.Unlock()
	for _, f := range fns {
		f()
	}
}
