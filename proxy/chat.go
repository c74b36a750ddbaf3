package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/toolhost"
)

// chatCompletions is POST /v1/chat/completions: read, route, run the turn,
// end the response the one right way.
func (s *Server) chatCompletions(c echo.Context) error {
	start := time.Now()
	req, err := readRequest(c)
	if err != nil {
		return err
	}
	st := s.stateOf(c)
	up, err := st.route(req.Model)
	if err != nil {
		return err
	}
	turn, err := s.newTurn(st, req, up, c.Request().Header)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if !req.Stream {
		if len(turn.Tools) == 0 {
			err := cutCause(ctx, s.relayJSON(c, up, req))
			s.logTurn(ctx, req, up, loop.Report{Rounds: 1}, err, time.Since(start))
			return err
		}
		return s.collect(c, turn, up, start)
	}

	out, err := newSSESink(c)
	if err != nil {
		return err
	}
	rep, err := s.runner.Run(ctx, turn, out)
	err = cutCause(ctx, err)
	s.logTurn(ctx, req, up, rep, err, time.Since(start))
	return s.endStream(c, out, err)
}

// newTurn gathers what the turn runs with: the upstream, its tool mode,
// the server tools it may call and the loop settings, after the request's
// overrides (SPEC §2: the body's "toolstream" object, then the
// X-Toolstream-* headers).
func (s *Server) newTurn(st *state, req *loop.Request, up *upstream, h http.Header) (*loop.Turn, error) {
	ho, err := headerOverrides(h)
	if err != nil {
		return nil, err
	}
	o := req.Overrides.Merge(ho)
	t := &loop.Turn{
		Request:      req,
		Upstream:     up,
		UpstreamName: up.cfg.Name,
		Format:       detect.Format(up.cfg.TextFormat),
		Loop:         st.cfg.Loop,
		Mode:         up.cfg.ToolMode,
		Modes:        s.modes,
		History:      s.history,
	}
	if o.Mode != "" {
		t.Mode = o.Mode
	}
	if o.Display != "" {
		t.Loop.Display = o.Display
	}
	if s.tools == nil || req.ToolChoiceNone {
		return t, nil
	}
	t.Tools, t.Executor = s.tools.Tools(), s.tools
	if o.Tools != nil {
		if t.Tools, err = pickTools(t.Tools, o.Tools); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// pickTools keeps the named server tools, in the order the config lists
// them; a name that is not a server tool is the client's mistake.
func pickTools(all []toolhost.Tool, names []string) ([]toolhost.Tool, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []toolhost.Tool
	for _, t := range all {
		if want[t.Name] {
			out = append(out, t)
			delete(want, t.Name)
		}
	}
	for n := range want {
		return nil, &loop.RequestError{Param: "toolstream.tools", Message: fmt.Sprintf("%q is not a server tool of this proxy", n)}
	}
	return out, nil
}

// collect runs a turn for a client that did not ask to stream and answers
// with one chat.completion. A turn that fails after a tool ran answers
// with x-should-retry: false, so SDKs do not replay it and its side
// effects (SPEC §3).
func (s *Server) collect(c echo.Context, turn *loop.Turn, up *upstream, start time.Time) error {
	ctx := c.Request().Context()
	out := &loop.Collector{Events: turn.Loop.Display == config.DisplayEvents}
	rep, err := s.runner.Run(ctx, turn, out)
	err = cutCause(ctx, err)
	s.logTurn(ctx, turn.Request, up, rep, err, time.Since(start))
	if err != nil {
		if rep.ToolsRan {
			c.Response().Header().Set("X-Should-Retry", "false")
		}
		return err
	}
	return c.JSONBlob(http.StatusOK, out.Completion())
}

// readRequest reads the body (bounded by limitBody) and parses the fields
// the proxy owns.
func readRequest(c echo.Context) (*loop.Request, error) {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return nil, err
	}
	return loop.ParseRequest(body)
}

// endStream is the commit point, decided in one place (STYLE §5.1): before
// the first byte an error is an HTTP status with OpenAI's body; after it,
// one in-band error event and no [DONE]; a client that left gets nothing.
// A turn cut by a shutdown (err is [ErrShuttingDown], see cutCause) is
// not a client that left: the client is still there and is told.
func (s *Server) endStream(c echo.Context, out *sseSink, err error) error {
	if err == nil {
		return nil
	}
	ae := toAPIError(err)
	if ae.Status == statusClientClosed || c.Request().Context().Err() != nil && !errors.Is(err, ErrShuttingDown) {
		return nil
	}
	if !out.committed {
		return err // errorHandler writes status and body
	}
	_ = out.fail(ae)
	return nil
}

// relayJSON forwards a non-streaming request without server tools and
// relays the upstream's answer as it came.
func (s *Server) relayJSON(c echo.Context, up *upstream, req *loop.Request) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), up.cfg.Timeout)
	defer cancel()
	body, err := loop.Stitch(ctx, s.history, req.UpstreamBody())
	if err != nil {
		return err
	}
	resp, err := up.post(ctx, "/chat/completions", body, "application/json")
	if err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return up.errorFrom(resp)
	}
	defer resp.Body.Close()
	h := c.Response().Header()
	h.Set("Content-Type", resp.Header.Get("Content-Type"))
	c.Response().WriteHeader(resp.StatusCode)
	if _, err := io.Copy(c.Response(), resp.Body); err != nil {
		if toAPIError(cutCause(ctx, err)).Status == statusClientClosed {
			return nil // nobody left to read it
		}
		// Headers are out; all that is left is to cut the response so the
		// client sees a broken body rather than a short one.
		s.log.LogAttrs(ctx, slog.LevelWarn, "relay cut", slog.String("upstream", up.cfg.Name), slog.String("error", err.Error()))
		panic(http.ErrAbortHandler)
	}
	return nil
}

// logTurn writes the one info line per turn (SPEC §10).
func (s *Server) logTurn(ctx context.Context, req *loop.Request, up *upstream, rep loop.Report, err error, d time.Duration) {
	status := "ok"
	attrs := []slog.Attr{
		slog.String("turn_id", rep.ID),
		slog.String("model", req.Model),
		slog.String("upstream", up.cfg.Name),
		slog.Int("rounds", rep.Rounds),
		slog.Int("tool_calls", rep.ToolCalls),
		slog.String("finish", rep.Finish),
		slog.Int64("duration_ms", d.Milliseconds()),
	}
	level := slog.LevelInfo
	if err != nil {
		ae := toAPIError(err)
		status = "error"
		if errors.Is(err, ErrShuttingDown) {
			status = "shutdown" // cut by CutStreams, the client told so
		}
		if ae.Status == statusClientClosed {
			status = "client_closed"
		} else {
			level = slog.LevelWarn
			attrs = append(attrs, slog.Int("code", ae.Status), slog.String("error", err.Error()))
		}
	}
	attrs = append(attrs, slog.String("status", status))
	s.log.LogAttrs(ctx, level, "turn", attrs...)
}
