package loop

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"

	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// pending is one call of a round and, once it finished, its result.
type pending struct {
	call   toolhost.Call
	result toolhost.Result
	// err is the executor's error: the client went away.
	err error
}

// note tells the writing goroutine that a call finished.
type note struct {
	p *pending
}

// approvalNote is an approval.requested or approval.resolved event to show.
type approvalNote struct {
	event  string
	call   toolhost.Call
	action store.Action
}

// calls runs a round's calls as their blocks close: in order of appearance,
// one after another, or all at once with parallel_tools. Results are fed
// back in call order either way; tool.finished events follow the order
// calls actually finish.
type calls struct {
	r        *Runner
	ctx      context.Context
	exec     Executor
	parallel bool
	notes    chan note
	// mail takes the approval events the calls' goroutines post to the
	// turn.
	mail *mailbox
	// progress shows the calls' progress; nil when the client sees no
	// events.
	progress *progressFeed
	wg       sync.WaitGroup
	// prev is closed when the previous call finished (sequential mode).
	prev chan struct{}
	// outstanding counts started calls whose finished note the writer has
	// not received yet. Only the writer goroutine touches it.
	outstanding int
}

// start runs p in its own goroutine. In sequential mode it first waits for
// the call before it, so a call found while another runs queues behind it.
func (c *calls) start(p *pending) {
	c.outstanding++
	before := c.prev
	mine := make(chan struct{})
	if !c.parallel {
		c.prev = mine
	}
	c.wg.Go(func() {
		defer close(mine)
		if before != nil {
			select {
			case <-before:
			case <-c.ctx.Done():
			}
		}
		ctx, span := c.r.toolSpan(c.ctx, p.call)
		p.result, p.err = c.exec.Execute(ctx, p.call)
		c.progress.closeCall(p.call.ID)
		endToolSpan(span, p.result, p.err)
		c.send(note{p: p})
	})
	if ready(before) {
		// The call goes first: this goroutine would otherwise flush the
		// client's stream (a write that takes tens of µs on loopback)
		// before the call got the CPU, and with GOMAXPROCS 1 nothing
		// else runs it. The tool.started event waits that long instead
		// of the webhook request.
		runtime.Gosched()
	}
}

// ready reports whether a call waiting on prev may run now: prev is nil
// or closed.
func ready(prev chan struct{}) bool {
	if prev == nil {
		return true
	}
	select {
	case <-prev:
		return true
	default:
		return false
	}
}

// send hands a note to the writer, unless the round is being torn down.
func (c *calls) send(n note) bool {
	select {
	case c.notes <- n:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// ApprovalRequested implements toolhost.Progress: the event is shown at
// once — the turn is woken to write it, whatever the round is doing
// meanwhile — and the call's goroutine waits until it was: a person must
// see it to decide.
func (c *calls) ApprovalRequested(call toolhost.Call, a store.Action) {
	if c.ctx.Err() == nil { // not once the round is torn down
		c.mail.postApproval(c.ctx, &approvalNote{event: "approval.requested", call: call, action: a})
	}
}

// ApprovalResolved implements toolhost.Progress.
func (c *calls) ApprovalResolved(call toolhost.Call, a store.Action) {
	if c.ctx.Err() == nil {
		c.mail.postApproval(c.ctx, &approvalNote{event: "approval.resolved", call: call, action: a})
	}
}

var _ toolhost.Progress = (*calls)(nil)

// finished shows a finished call to the client.
func (tr *turnRun) finished(p *pending) error {
	if p.err != nil {
		return p.err
	}
	if err := tr.showLastProgress(p); err != nil {
		return err
	}
	return tr.showFinished(p)
}

// parseErrorMessage is what the model reads about a block it wrote that
// could not be used.
func parseErrorMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "detect: ")
	switch {
	case errors.Is(err, detect.ErrUnclosed):
		return msg + "; write the whole block, closing tag included"
	case errors.Is(err, detect.ErrTooLarge):
		return msg + "; send smaller arguments"
	}
	return "your tool call could not be read: " + msg
}
