package proxy

import (
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/proxy/internal/tokencount"
	"github.com/toolstream/toolstream/proxy/messages"
)

// tokenCounter is the Server's counter; its zero value is ready.
type tokenCounter = tokencount.Counter

// countTokensRoute registers POST /v1/messages/count_tokens on v1 (the
// client-key group), after /v1/messages: its errors are in that route's
// shape, Anthropic's.
func (s *Server) countTokensRoute(v1 *echo.Group) {
	s.protocols["/v1/messages/count_tokens"] = s.protocols["/v1/messages"]
	v1.POST("/messages/count_tokens", s.countTokens)
}

// countTokens is POST /v1/messages/count_tokens: the input tokens of a
// Messages request, {"input_tokens": N}, for Claude Code's /context and
// its compaction. The request is read as a Messages turn's is (system,
// messages, tools, deferred tools left out), routed by its model, and
// counted by the upstream's own /tokenize where its server has one, else
// estimated (package tokencount). It never reaches the upstream as it
// came: no server has this route. Errors are in Anthropic's shape, as on
// /v1/messages.
func (s *Server) countTokens(c echo.Context) error {
	body, _, err := s.readJSON(c, true)
	if err != nil {
		return err
	}
	mreq, err := messages.ToCount(body)
	if err != nil {
		return err
	}
	if err := checkModel(c, mreq.Model); err != nil {
		return err
	}
	up, target, err := s.stateOf(c).route(mreq.Model)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	n, from, err := s.tokens.Count(ctx, up, target, mreq.Chat)
	if err != nil {
		return err
	}
	s.log.LogAttrs(ctx, slog.LevelDebug, "tokens counted", slog.String("model", mreq.Model),
		slog.String("upstream", up.Name()), slog.String("by", string(from)), slog.Int("input_tokens", n))
	return c.JSON(http.StatusOK, struct {
		InputTokens int `json:"input_tokens"`
	}{n})
}
