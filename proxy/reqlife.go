package proxy

import (
	"context"
	"sync/atomic"

	"github.com/labstack/echo/v4"
)

// reqLife is one request from its arrival to the end of its answer, and
// the context that request runs under.
//
// The end is usually the handler's return. A stream that left its
// handler (detach.go) ends later, on its own goroutine, and takes along
// what waits for the end: its key's place under the key's limits, its
// entry in the live view and the open-streams gauge, and its place among
// the requests a shutdown waits for and cuts. So the request's context
// does not end with net/http's: it is cancelled when the client leaves
// (net/http says so while the handler runs, the stream's own watcher
// after), by a shutdown's cut, and at the end.
type reqLife struct {
	f      *inflight
	id     uint64
	listed bool
	cancel context.CancelCauseFunc
	// stop ends net/http's say over the context (its cancellation no
	// longer reaches it); it reports whether it had not spoken yet.
	stop     func() bool
	detached atomic.Bool
	// ends run when the answer is over, last put first. Touched by the
	// handler's goroutine, then, once detached, by the stream's alone.
	ends []func()
}

type lifeKey struct{}

// lifeOf is the request of ctx; nil for a request not served through
// [Server.ServeHTTP].
func lifeOf(ctx context.Context) *reqLife {
	l, _ := ctx.Value(lifeKey{}).(*reqLife)
	return l
}

// whenAnswered puts fn off until c's answer is over, and returns what
// its caller defers: nothing when fn was put off, fn itself for a request
// that has no reqLife.
func whenAnswered(c echo.Context, fn func()) func() {
	if l := lifeOf(c.Request().Context()); l != nil {
		l.ends = append(l.ends, fn)
		return func() {}
	}
	return fn
}

// handlerReturned ends the request, unless its stream left the handler
// and ends it itself.
func (l *reqLife) handlerReturned() {
	if !l.detached.Load() {
		l.end()
	}
}

// runEnds runs what waited for the answer (once). A stream runs them
// before it writes its last bytes, as net/http runs a handler's deferred
// calls before it ends the response: a client that sends its next
// request as soon as it read the end finds the key's place given back.
func (l *reqLife) runEnds() {
	for i := len(l.ends) - 1; i >= 0; i-- {
		l.ends[i]()
	}
	l.ends = nil
}

// end runs what waited for the answer, takes the request off the list
// of those in flight, and cancels its context.
func (l *reqLife) end() {
	l.runEnds()
	l.stop()
	if l.listed {
		l.f.finish(l.id)
	}
	l.cancel(nil)
}

// detach hands the request's end over to its stream: net/http's
// cancellation, which comes when the handler returns, no longer reaches
// the context. A client that left before this is seen by the stream's
// watcher (a closed socket reads EOF again).
func (l *reqLife) detach() {
	l.detached.Store(true)
	l.stop()
}
