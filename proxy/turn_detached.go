package proxy

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/internal/exchange"
	"github.com/toolstream/toolstream/proxy/internal/handback"
	"github.com/toolstream/toolstream/proxy/upstream"
)

// mayDetach reports whether r's stream, if it streams, may leave its
// handler at its first event (detach.go): an HTTP/1.1 POST to a turn
// route, served on [Listener], with tracing off (the request's span is
// its handler's).
func (s *Server) mayDetach(r *http.Request) bool {
	if r.Method != http.MethodPost || r.ProtoMajor != 1 || r.ProtoMinor < 1 || s.handler != http.Handler(s.echo) {
		return false
	}
	_, turn := s.protocols[r.URL.Path]
	return turn && handback.From(r.Context()) != nil
}

// canDetach reports whether c's stream may leave its handler: its
// request got a reqLife that allows it (ServeHTTP, mayDetach).
func (s *Server) canDetach(c echo.Context) bool {
	return lifeOf(c.Request().Context()) != nil
}

// streamDetached runs streamTurn's turn on a goroutine of its own. Until
// the first event the handler waits for it, and an error is still an
// HTTP status (endStream, as before). At the first event the stream
// takes its connection (takeConn) and the handler returns; the turn's
// goroutine never touches echo's context, which goes back to echo's pool
// with net/http's request and response, and ends the request itself
// (reqLife).
func (s *Server) streamDetached(c echo.Context, st *state, x exchange.Turn, turn *loop.Turn, up *upstream.Client, start time.Time, out *sseSink) error {
	r := c.Request()
	ctx, key := r.Context(), requestKey(c)
	left := make(chan struct{})
	out.take = detacher(c.Response(), handback.From(ctx), lifeOf(ctx), !r.Close, left)
	done := make(chan ended, 1)
	go s.runDetached(ctx, key, st, x, turn, up, start, out, done)
	select {
	case e := <-done:
		if e.panic != nil {
			panic(e.panic) // recoverPanic's, as if raised here
		}
		return s.endStream(c, x, out, up, &e.rep, e.err, start)
	case <-left:
		return nil
	}
}

// ended is how a turn that did not leave its handler ended.
type ended struct {
	rep   loop.Report
	err   error
	panic any
}

// detacher is the sink's take: it takes the connection, and closes left
// once it has.
func detacher(w http.ResponseWriter, back *handback.Listener, life *reqLife, keep bool, left chan struct{}) func() *detachedConn {
	return func() *detachedConn {
		d := takeConn(w, back, life, keep)
		if d != nil {
			close(left)
		}
		return d
	}
}

// runDetached is the stream's goroutine: it runs the turn, and then
// either reports to the handler, still waiting, or ends the stream it
// took.
func (s *Server) runDetached(ctx context.Context, key string, st *state, x exchange.Turn, turn *loop.Turn, up *upstream.Client, start time.Time, out *sseSink, done chan<- ended) {
	defer func() {
		if p := recover(); p != nil {
			s.recoverDetached(out, p, done)
		}
	}()
	var rep loop.Report
	err := s.runner.RunTo(ctx, turn, x.Start(turn, out), &rep)
	if out.conn == nil {
		done <- ended{rep: rep, err: err}
		return
	}
	s.endDetached(ctx, key, st, x, out, up, &rep, err, start)
}

// endDetached is endStream for a stream that left its handler: it logs
// the turn, ends the stream (in-band, the commit point being passed),
// gives the connection back, and ends the request.
func (s *Server) endDetached(ctx context.Context, key string, st *state, x exchange.Turn, out *sseSink, up *upstream.Client, rep *loop.Report, err error, start time.Time) {
	err = cutCause(ctx, err)
	s.logTurn(ctx, key, x.Request(), up, *rep, err, time.Since(start))
	_ = s.endTurn(ctx, st, x, out, err)
	out.conn.life.runEnds()
	out.endConn()
	out.conn.life.end() // after the last bytes: a shutdown waits for them
}

// recoverDetached is recoverPanic for a stream's goroutine: before the
// stream left its handler, the handler raises p again; after, the
// connection is closed (the client sees the stream cut) and the request
// ended.
func (s *Server) recoverDetached(out *sseSink, p any, done chan<- ended) {
	if out.conn == nil {
		done <- ended{panic: p}
		return
	}
	if p != http.ErrAbortHandler {
		s.log.Error("handler panic", "panic", fmt.Sprint(p))
	}
	out.conn.finish(http.ErrAbortHandler)
	out.conn.life.end()
}
