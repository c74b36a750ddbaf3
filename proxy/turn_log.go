package proxy

import (
	"context"
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/upstream"
	"github.com/toolstream/toolstream/toolhost"
)

// logTurn writes the one info line per turn (docs/operations.md) and counts the
// turn in the metrics and in its client key's usage, its tokens under the
// request's client key. tool_calls
// counts every call, client calls included; calls_ok, calls_error,
// calls_denied, calls_cancelled and calls_client split it by status and
// appear when not zero. prompt_tokens and completion_tokens are the usage
// the upstream reported, whether or not the client asked for it;
// usage=unknown says it reported none (it refuses stream_options, or
// sends no usage).
func (s *Server) logTurn(ctx context.Context, key string, req *loop.Request, up *upstream.Client, rep loop.Report, err error, d time.Duration) {
	status := turnStatus(err)
	s.metrics.turnDone(up.Name(), key, status, rep, s.hasTool)
	s.addUsage(ctx, turnUsage(key, rep))
	s.writeTurnLine(ctx, key, status, req, up, &rep, err, d)
}

// writeTurnLine writes logTurn's line. Its attributes are built in its
// own frame, 2 KiB of them, which is gone before the next turn on the
// connection: logTurn's frame holds none while the usage is stored, so
// the storage's calls do not take the handler past its 8 KiB stack
// (BenchmarkIdleStreamMemory).
func (s *Server) writeTurnLine(ctx context.Context, key, status string, req *loop.Request, up *upstream.Client, rep *loop.Report, err error, d time.Duration) {
	level := slog.LevelInfo
	if err != nil && status != turnClientClosed {
		level = slog.LevelWarn
	}
	if !s.log.Enabled(ctx, level) {
		return // log.level above it: nothing to build
	}
	// turn_id is what the turn's calls and approvals are filed under;
	// completion_id is the chunk id the client read.
	turnID := rep.TurnID
	if turnID == "" {
		turnID = rep.ID
	}
	attrs := make([]slog.Attr, 0, 24)
	if turnID != "" { // empty when the turn failed before any chunk
		attrs = append(attrs, slog.String("turn_id", turnID), slog.String("completion_id", rep.ID))
	}
	attrs = append(attrs,
		slog.String("model", req.Model),
		slog.String("upstream", up.Name()),
	)
	if rep.Upstream != "" {
		attrs = append(attrs, slog.String("fallback", rep.Upstream))
	}
	if key != "" {
		attrs = append(attrs, slog.String("key", key))
	}
	attrs = append(attrs,
		slog.Int("rounds", rep.Rounds),
		slog.Int("tool_calls", len(rep.Calls)),
	)
	attrs = append(attrs, callCounts(rep.Calls)...)
	if rep.UsageKnown {
		attrs = append(attrs, slog.Int("prompt_tokens", rep.PromptTokens), slog.Int("cached_tokens", rep.CachedTokens), slog.Int("completion_tokens", rep.CompletionTokens))
	} else {
		attrs = append(attrs, slog.String("usage", "unknown"))
	}
	attrs = append(attrs,
		slog.String("finish", rep.Finish),
		slog.Int64("duration_ms", d.Milliseconds()),
	)
	if level == slog.LevelWarn {
		attrs = append(attrs, slog.Int("code", toAPIError(err).Status), slog.String("error", err.Error()))
	}
	attrs = append(attrs, slog.String("status", status))
	s.log.LogAttrs(ctx, level, "turn", attrs...)
}

// requestKey is the id of the client key the request came with; empty
// when the proxy runs without keys.
func requestKey(c echo.Context) string {
	k, _ := c.Get(ctxKeyID).(string)
	return k
}

// turnStatus is how a turn ended, in the words of the log line and of
// toolstream_turns_total.
func turnStatus(err error) string {
	if err == nil {
		return turnOK
	}
	switch ae := toAPIError(err); {
	case ae.Status == statusClientClosed:
		return turnClientClosed
	case ae.Code == "shutting_down": // docs/operations.md: cut by a graceful shutdown
		return turnShutdown
	}
	return turnError
}

// callCounts counts a turn's calls by status, as calls_<status> attributes
// in a fixed order, leaving out the statuses no call had.
func callCounts(calls []loop.CallSummary) []slog.Attr {
	if len(calls) == 0 {
		return nil
	}
	statuses := []string{toolhost.StatusOK, toolhost.StatusError, toolhost.StatusDenied, toolhost.StatusCancelled, loop.StatusClient}
	counts := make([]int, len(statuses))
	for _, c := range calls {
		st := c.Status
		if !c.Client {
			st = callStatus(st)
		}
		for i, s := range statuses {
			if st == s {
				counts[i]++
			}
		}
	}
	var attrs []slog.Attr
	for i, n := range counts {
		if n > 0 {
			attrs = append(attrs, slog.Int("calls_"+statuses[i], n))
		}
	}
	return attrs
}

// hasTool reports whether name is a server tool of the proxy, so that
// metrics label calls of any other name "unknown".
func (s *Server) hasTool(name string) bool {
	if s.tools == nil {
		return false
	}
	for _, t := range s.tools.Tools() {
		if t.Name == name {
			return true
		}
	}
	return false
}
