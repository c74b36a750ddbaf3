package proxy

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/chunk"
	"github.com/toolstream/toolstream/loop/history"
	"github.com/toolstream/toolstream/proxy/upstream"
)

// relayJSON forwards a non-streaming request without server tools and
// relays the upstream's answer: from the turn's upstream, or from its
// fallbacks in order when it cannot start. The answer's usage is the
// turn's, counted like a streamed round's.
func (s *Server) relayJSON(c echo.Context, turn *loop.Turn) (loop.Report, error) {
	rep := loop.Report{Rounds: 1}
	up := turn.Upstream.(*upstream.Client)
	for {
		err := s.relayJSONFrom(c, up, turn.Request, turn.ImplicitThinking(), &rep)
		if rep.UsageKnown && turn.OnRoundUsage != nil {
			turn.OnRoundUsage(rep.PromptTokens, rep.CompletionTokens)
		}
		if err == nil || len(turn.Fallbacks) == 0 || !loop.CannotStart(err) {
			return rep, err
		}
		fb := turn.Fallbacks[0]
		turn.Fallbacks = turn.Fallbacks[1:]
		s.log.LogAttrs(c.Request().Context(), slog.LevelWarn, "upstream fallback", slog.String("from", up.Name()), slog.String("to", fb.Name), slog.String("error", err.Error()))
		up, turn.ImplicitThink = fb.Upstream.(*upstream.Client), fb.ImplicitThink
		turn.Request.Rename(fb.Model)
		rep.Upstream = fb.Name
	}
}

// relayJSONFrom relays one upstream's answer to a non-streaming request,
// and notes its usage in rep. The answer is read whole before a byte of it
// is written, up to upstream.MaxAnswer: an answer that breaks off before
// its end, or grows past the bound, is then still a 502 in OpenAI's shape
// rather than a cut body, and no answer costs more memory than the bound.
// The client waits for the whole answer either way.
func (s *Server) relayJSONFrom(c echo.Context, up *upstream.Client, req *loop.Request, think bool, rep *loop.Report) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), up.Config().Timeout)
	defer cancel()
	keyID, _ := c.Get(ctxKeyID).(string)
	body, err := history.Stitch(ctx, s.history, keyID, req.UpstreamBody())
	if err != nil {
		return err
	}
	resp, err := up.PostJSON(ctx, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, err := readAnswer(ctx, up, resp.Body)
	if err != nil {
		return err
	}
	if think {
		// implicit_think: the answer's content is split.
		answer = chunk.ThinkAnswer(answer)
	}
	if req.UpstreamModel != "" {
		// An alias: the client reads back the name it asked for.
		answer = loop.RenameAnswer(answer, req.Model)
	}
	rep.PromptTokens, rep.CompletionTokens, rep.CachedTokens, rep.UsageKnown = chunk.AnswerUsage(answer)
	h := c.Response().Header()
	h.Set("Content-Type", resp.Header.Get("Content-Type"))
	c.Response().WriteHeader(resp.StatusCode)
	if _, err := c.Response().Write(answer); err != nil {
		if toAPIError(cutCause(ctx, err)).Status == statusClientClosed || c.Request().Context().Err() != nil {
			return nil // nobody left to read it
		}
		// Headers are out; all that is left is to cut the response so the
		// client sees a broken body rather than a short one.
		s.log.LogAttrs(ctx, slog.LevelWarn, "relay cut", slog.String("upstream", up.Name()), slog.String("error", err.Error()))
		panic(http.ErrAbortHandler)
	}
	return nil
}

// readAnswer reads a non-streaming answer whole, up to
// upstream.MaxAnswer bytes.
func readAnswer(ctx context.Context, up *upstream.Client, r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, upstream.MaxAnswer+1))
	switch {
	case err == nil && len(b) > upstream.MaxAnswer:
		return nil, &upstream.AnswerTooLargeError{Upstream: up.Name(), Limit: upstream.MaxAnswer}
	case err == nil:
		return b, nil
	case ctx.Err() != nil:
		return nil, up.ReadErr(ctx, err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, &loop.StreamError{Upstream: up.Name(), Reason: "the answer broke off before its end (its Content-Length)", Err: err}
	}
	return nil, &loop.StreamError{Upstream: up.Name(), Reason: "the answer broke off before its end", Err: err}
}
