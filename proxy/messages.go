package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/history"
	"github.com/toolstream/toolstream/proxy/messages"
)

// messagesPath is the Anthropic Messages API route. Its errors are
// Anthropic's (errorHandler).
const messagesPath = "/v1/messages"

// messages is POST /v1/messages: the same turn as chat completions, read
// and answered in Anthropic's Messages API (docs/http-api.md). The
// upstream side does not change: every round is a chat-completions
// request. Claude Code's ?beta=true and the anthropic-version and
// anthropic-beta headers are accepted and change nothing.
func (s *Server) messages(c echo.Context) error {
	start := time.Now()
	mreq, req, err := s.readMessages(c)
	if err != nil {
		return err
	}
	st := s.stateOf(c)
	turn, up, err := s.prepareTurn(c, st, req)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	opts := messages.Options{ID: s.newID("msg_"), Model: mreq.Model, Tools: turn.Tools}
	if !mreq.Stream {
		enc := messages.NewMessage(opts)
		rep, err := s.runner.Run(ctx, turn, loop.Events(enc))
		err = cutCause(ctx, err)
		s.logTurn(c, req, up, rep, err, time.Since(start))
		if err != nil {
			if rep.ToolsRan {
				// A tool already acted: the SDK must not replay the turn.
				c.Response().Header().Set("X-Should-Retry", "false")
			}
			return err
		}
		b, err := enc.Message()
		if err != nil {
			return err
		}
		return c.JSONBlob(http.StatusOK, b)
	}

	out, err := newSSESink(c, st.cfg.WriteIdleTimeout)
	if err != nil {
		return err
	}
	out.bytes = s.metrics.streamBytes
	s.metrics.activeStreams.Inc()
	defer s.metrics.activeStreams.Dec()
	rep, err := s.runner.Run(ctx, turn, loop.Events(messages.NewStream(out, opts)))
	err = cutCause(ctx, err)
	s.logTurn(c, req, up, rep, err, time.Since(start))
	if err != nil && rep.ToolsRan {
		c.Response().Header().Set("X-Should-Retry", "false")
	}
	return s.endMessages(c, out, err)
}

// readMessages reads the body (readJSON), maps it to a chat
// request, restores the earlier answers it sends back, and parses the
// result as the chat route parses its requests.
func (s *Server) readMessages(c echo.Context) (*messages.Request, *loop.Request, error) {
	body, _, err := s.readJSON(c, true)
	if err != nil {
		return nil, nil, err
	}
	mreq, err := messages.ToChat(body)
	if err != nil {
		return nil, nil, err
	}
	keyID, _ := c.Get(ctxKeyID).(string)
	if err := s.restoreAnswers(c.Request().Context(), keyID, mreq); err != nil {
		return nil, nil, err
	}
	req, err := loop.ParseRequest(mreq.Chat)
	if err != nil {
		return nil, nil, err
	}
	return mreq, req, nil
}

// restoreAnswers puts back the earlier answers whose mcp_tool_use and
// mcp_tool_result blocks the client sent: each names a server call, whose
// stored turn holds the whole answer as the model wrote it, results
// included. The answer's place gets a history.Placeholder, which history
// stitching replaces with the stored rounds before every upstream request.
// A stored turn counts only for the key that wrote it, after the messages
// its request held, as history stitching finds it (history.Scope). A call
// with no such turn (expired, another key's or conversation's, from
// another proxy, or no storage) is refused: the model would read an
// answer whose tool results are missing, and the call is never run again.
func (s *Server) restoreAnswers(ctx context.Context, keyID string, r *messages.Request) error {
	if len(r.Restored) == 0 {
		return nil
	}
	if s.history == nil {
		b := r.Restored[0]
		return &messages.Error{Message: fmt.Sprintf("%s %q: this proxy keeps no stored turns (it runs without storage), so an earlier server tool call cannot be restored; send the conversation without the mcp_tool_use and mcp_tool_result blocks", b.Type, b.ID)}
	}
	used := map[string]bool{}
	conv, counted := history.NewAnchor(), 0
	return r.Restore(func(before []json.RawMessage, b messages.Restored) ([]json.RawMessage, error) {
		for _, m := range before[counted:] {
			conv.Add(m)
		}
		counted = len(before)
		id := messages.CallID(b.ID)
		rec, ok, err := history.FindCall(ctx, s.history, conv.Scope(keyID), id)
		if err != nil {
			return nil, fmt.Errorf("finding the stored turn of call %s: %w", id, err)
		}
		if !ok {
			return nil, &messages.Error{Message: fmt.Sprintf("%s %q: no stored turn of this conversation has this call (stored turns are kept per key and conversation, and expire after storage.turn_retention); send the conversation without the mcp_tool_use and mcp_tool_result blocks of that answer", b.Type, b.ID)}
		}
		if used[rec.ID] {
			return nil, nil // the answer is restored already
		}
		used[rec.ID] = true
		var name struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(b.Block, &name)
		return []json.RawMessage{history.Placeholder(id, name.Name)}, nil
	})
}

// endMessages is the commit point of a streamed answer, as endStream is
// for chat: before the first event an error is an HTTP status with
// Anthropic's body (errorHandler); after it, one error event and the end,
// with no message_stop, so a cut answer never looks complete; a client
// that left gets nothing.
func (s *Server) endMessages(c echo.Context, out *sseSink, err error) error {
	if err == nil || clientLeft(c, err) {
		return nil
	}
	if !out.committed {
		return err
	}
	_ = out.WriteEvent("error", s.messagesErrorBody(c, err))
	return nil
}

// newID mints an id with the runner's generator (tests pin it).
func (s *Server) newID(prefix string) string {
	if s.runner.NewID != nil {
		return s.runner.NewID(prefix)
	}
	return loop.NewID(prefix)
}

var _ messages.Writer = (*sseSink)(nil)
