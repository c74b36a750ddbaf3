package proxy

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/internal/exchange"
	"github.com/toolstream/toolstream/proxy/upstream"
)

// turnRoute registers p's POST route on g (whose prefix is prefix): one
// turn route for every client protocol. Every error on the route, the key
// middleware's and the body limit's included, is answered in p's shape
// (errorHandler).
func (s *Server) turnRoute(g *echo.Group, prefix, path string, p exchange.Protocol) {
	s.protocols[prefix+path] = p
	g.POST(path, s.serveTurn(p), s.admit)
}

// protocolOf is the protocol of the route c is on; chat completions'
// OpenAI shape for every route that is not a turn's.
func (s *Server) protocolOf(c echo.Context) exchange.Protocol {
	if p, ok := s.protocols[c.Path()]; ok {
		return p
	}
	return chatProtocol{}
}

// serveTurn is the turn route of protocol p, a checklist read top to
// bottom: the key (requireKey) and the limits (admit) are passed already;
// the body is read, then the model's scope, the storage gate and the
// upstream are checked (prepareTurn), all before the first byte, so that
// any of them fails as an HTTP status in p's shape. The first byte is the
// commit point; endTurn decides what an error is after it.
func (s *Server) serveTurn(p exchange.Protocol) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		x, st, turn, up, err := s.openTurn(c, p)
		if err != nil {
			return err
		}
		shown := s.live.Start(requestKey(c), x.Request().Model, p.Source())
		defer whenAnswered(c, shown.End)()
		turn.Watch = shown.Watch
		if !x.Stream() {
			return s.answerTurn(c, x, turn, up, start)
		}
		return s.streamTurn(c, st, x, turn, up, start)
	}
}

// openTurn reads c's request as p's and prepares its turn. A call of its
// own: what reading takes in its frame is gone before the turn runs
// (BenchmarkIdleStreamMemory).
func (s *Server) openTurn(c echo.Context, p exchange.Protocol) (exchange.Turn, *state, *loop.Turn, *upstream.Client, error) {
	x, err := s.readTurn(c, p)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if lo, ok := x.(exchange.LeftOuter); ok {
		s.leftOut.Note(c.Request().Context(), c.Path(), requestKey(c), lo.LeftOut())
	}
	st := s.stateOf(c)
	turn, up, err := s.prepareTurn(c, st, x.Request(), p.Source())
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return x, st, turn, up, nil
}

// streamTurn runs a turn for a client that asked to stream: the protocol's
// encoder writes to the SSE writer, whose first event is the commit point.
func (s *Server) streamTurn(c echo.Context, st *state, x exchange.Turn, turn *loop.Turn, up *upstream.Client, start time.Time) error {
	out, err := newSSESink(c.Response(), st.cfg.WriteIdleTimeout)
	if err != nil {
		return err
	}
	out.bytes = s.metrics.streamBytes
	s.metrics.activeStreams.Inc()
	defer whenAnswered(c, s.metrics.activeStreams.Dec)()
	if s.canDetach(c) {
		return s.streamDetached(c, st, x, turn, up, start, out)
	}
	var rep loop.Report
	err = s.runner.RunTo(c.Request().Context(), turn, x.Start(turn, out), &rep)
	return s.endStream(c, x, out, up, &rep, err, start)
}

// endStream logs the streamed turn that ended with rep and err and ends
// its stream. It is streamTurn's tail in a call of its own: streamTurn's
// frame stays under the whole turn, so it holds no more than the run
// needs (BenchmarkIdleStreamMemory).
func (s *Server) endStream(c echo.Context, x exchange.Turn, out *sseSink, up *upstream.Client, rep *loop.Report, err error, start time.Time) error {
	ctx := c.Request().Context()
	err = cutCause(ctx, err)
	s.logTurn(ctx, requestKey(c), x.Request(), up, *rep, err, time.Since(start))
	if err != nil && rep.ToolsRan {
		// Reaches the client only if nothing was streamed yet (display:
		// none): a tool already acted, so the SDK must not replay.
		c.Response().Header().Set("X-Should-Retry", "false")
	}
	return s.endTurn(ctx, s.stateOf(c), x, out, err)
}

// readTurn reads the body (readJSON) as p's request.
func (s *Server) readTurn(c echo.Context, p exchange.Protocol) (exchange.Turn, error) {
	body, _, err := s.readJSON(c, true)
	if err != nil {
		return nil, err
	}
	return p.Read(c.Request().Context(), exchange.Input{Body: body, Header: c.Request().Header, KeyID: requestKey(c)})
}

// answerTurn runs a turn for a client that did not ask to stream and
// answers with one JSON body: the upstream's own when the protocol relays
// and the turn has no server tools, else the protocol's answer. A turn
// that fails after a tool ran answers with x-should-retry: false, so SDKs
// do not replay it and its side effects (docs/http-api.md).
func (s *Server) answerTurn(c echo.Context, x exchange.Turn, turn *loop.Turn, up *upstream.Client, start time.Time) error {
	ctx := c.Request().Context()
	if x.Relay() && len(turn.Tools) == 0 {
		rep, err := s.relayJSON(c, turn)
		err = cutCause(ctx, err)
		s.logTurn(ctx, requestKey(c), x.Request(), up, rep, err, time.Since(start))
		return err
	}
	rep, err := s.runner.Run(ctx, turn, x.Start(turn, nil))
	err = cutCause(ctx, err)
	s.logTurn(ctx, requestKey(c), x.Request(), up, rep, err, time.Since(start))
	if err != nil {
		if rep.ToolsRan {
			c.Response().Header().Set("X-Should-Retry", "false")
		}
		return err
	}
	b, err := x.Answer()
	if err != nil {
		return err
	}
	return c.JSONBlob(http.StatusOK, b)
}

// endTurn is the commit point, decided in one place: before the first
// byte an error is an HTTP status in the protocol's shape (errorHandler);
// after it, the protocol's in-band error and nothing that says the answer
// finished; a client that left gets nothing. A turn cut by a shutdown (err
// is [ErrShuttingDown], see cutCause) is not a client that left: the
// client is still there and is told.
func (s *Server) endTurn(ctx context.Context, st *state, x exchange.Turn, out *sseSink, err error) error {
	if err == nil || clientLeft(ctx, err) {
		return nil
	}
	if !out.committed {
		return err // errorHandler writes status and body
	}
	_ = x.Fail(out, err, toAPIError(err), st.mask)
	return nil
}

// clientLeft reports whether a turn's error leaves nobody to tell: the
// client hung up. A turn cut by a shutdown is not that: its client is
// still there and is told.
func clientLeft(ctx context.Context, err error) bool {
	return toAPIError(err).Status == statusClientClosed || ctx.Err() != nil && !errors.Is(err, ErrShuttingDown)
}

// newID mints an id with the runner's generator (tests pin it).
func (s *Server) newID(prefix string) string {
	if s.runner.NewID != nil {
		return s.runner.NewID(prefix)
	}
	return loop.NewID(prefix)
}

// now is the server's clock.
func (s *Server) now() time.Time {
	if s.runner.Now != nil {
		return s.runner.Now()
	}
	return time.Now()
}

var _ exchange.Writer = (*sseSink)(nil)
