package proxy

import (
	"context"
	"fmt"
	"sync"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/internal/hosted"
	"github.com/toolstream/toolstream/toolhost"
)

// hostedExecutor runs a turn's calls, a hosted tool's (web_search) as a
// call of the server tool hosted_tools binds to it (search_web): that
// tool's approvals, policies and audit apply, and the audit log names it.
// Other calls pass through unchanged. One per turn: it also counts each
// hosted tool's uses against the client's max_uses.
type hostedExecutor struct {
	inner loop.Executor
	// bound maps a hosted tool's name to the server tool that runs it.
	bound map[string]string
	// max is the client's max_uses per hosted tool; absent, no limit.
	max map[string]int

	mu   sync.Mutex
	used map[string]int
}

// Execute runs call, as the bound tool's call when it is a hosted tool's;
// the result names the call's own tool again, as the model called it.
func (h *hostedExecutor) Execute(ctx context.Context, call toolhost.Call) (toolhost.Result, error) {
	name := call.Name
	bound, ok := h.bound[name]
	if !ok {
		return h.inner.Execute(ctx, call)
	}
	if !h.use(name) {
		res := toolhost.ErrorResult(call, hosted.CodeMaxUses, fmt.Sprintf(
			"%s was already used %d times in this turn, the most the client allows (max_uses); answer with what you have", name, h.max[name]))
		h.Refuse(ctx, call, res) // the audit log holds every call the model made
		return res, nil
	}
	call.Name = bound
	res, err := h.inner.Execute(ctx, call)
	res.Name = name
	return res, err
}

// Refuse files a call the loop refused itself under the bound tool's
// name too, when the executor under it keeps such records.
func (h *hostedExecutor) Refuse(ctx context.Context, call toolhost.Call, res toolhost.Result) {
	r, ok := h.inner.(loop.Refuser)
	if !ok {
		return
	}
	if bound, ok := h.bound[call.Name]; ok {
		call.Name, res.Name = bound, bound
	}
	r.Refuse(ctx, call, res)
}

// use counts one use of hosted tool name and reports whether it is
// within the client's max_uses.
func (h *hostedExecutor) use(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.used == nil {
		h.used = map[string]int{}
	}
	h.used[name]++
	max, limited := h.max[name]
	return !limited || h.used[name] <= max
}
