package proxy

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/internal/aside"
	"github.com/toolstream/toolstream/proxy/mcpserve"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// UsageStore keeps usage per client key and day (GET /admin/usage). The
// storage backends implement it.
type UsageStore interface {
	AddUsage(ctx context.Context, u store.Usage) error
	Usage(ctx context.Context, q store.UsageQuery) ([]store.Usage, error)
}

// usageWriteTimeout bounds the write of one turn's usage: the turn is
// over, its client has its answer or is gone, and storage that does not
// answer must not hold the handler long.
const usageWriteTimeout = 5 * time.Second

// addUsage counts one request of key (a turn, or a tool call through
// /mcp) in its day's usage. Written once, by the replica that ran it,
// when it ended: replicas sharing a database never count one twice. A
// failed write is logged: the turn's answer stands.
func (s *Server) addUsage(ctx context.Context, u store.Usage) {
	if s.usage == nil || u.Key == "" {
		return // no keys, no one to count for
	}
	u.Day, u.Requests = store.UsageDay(s.now()), 1
	// Counted also when the client left: its tokens were spent.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), usageWriteTimeout)
	defer cancel()
	// Aside: a storage's read-modify-write of the day's row runs deep,
	// and the handler's goroutine goes on to its connection's next
	// stream.
	var err error
	aside.Do(func() { err = s.usage.AddUsage(ctx, u) })
	if err != nil {
		s.log.Warn("recording usage failed", "key", u.Key, "error", err.Error())
	}
}

// turnUsage is what a turn spent, as usage counts it: its tokens and its
// server tool calls (the audit log's rows; the client's own calls are
// not the proxy's).
func turnUsage(key string, rep loop.Report) store.Usage {
	u := store.Usage{Key: key, PromptTokens: int64(rep.PromptTokens), CompletionTokens: int64(rep.CompletionTokens), CachedTokens: int64(rep.CachedTokens)}
	for _, c := range rep.Calls {
		if !c.Client {
			u.ToolCalls++
		}
	}
	return u
}

// listUsage answers GET /admin/usage?key=&from=&to=: the usage rows of
// one key (or all) from one day to another, both included, by key and
// day.
func (s *Server) listUsage(c echo.Context) error {
	q := store.UsageQuery{Key: c.QueryParam("key"), From: c.QueryParam("from"), To: c.QueryParam("to")}
	if q.Key != "" && !store.ValidName(q.Key) {
		return &clientError{code: "invalid_key_name", param: "key", msg: "key must be a client key's name (letters, digits and _-.:)"}
	}
	for _, p := range []struct{ param, v string }{{"from", q.From}, {"to", q.To}} {
		if _, err := time.Parse(store.DayLayout, p.v); p.v != "" && err != nil {
			return &clientError{code: "invalid_date", param: p.param, msg: p.param + " must be a date as YYYY-MM-DD (UTC), like 2026-11-29"}
		}
	}
	if q.From != "" && q.To != "" && q.From > q.To {
		return &clientError{code: "invalid_date", param: "from", msg: "from is after to"}
	}
	rows, err := s.usage.Usage(c.Request().Context(), q)
	if err != nil {
		return err
	}
	if rows == nil {
		rows = []store.Usage{}
	}
	return c.JSON(http.StatusOK, struct {
		Object string        `json:"object"`
		Data   []store.Usage `json:"data"`
	}{"list", rows})
}

// usageCounted is /mcp's tool host, counting each tools/call in its
// key's usage as one request and one tool call, once it has run.
type usageCounted struct {
	host mcpserve.Tools
	s    *Server
}

func (u usageCounted) Tools() []toolhost.Tool { return u.host.Tools() }

func (u usageCounted) Execute(ctx context.Context, call toolhost.Call) (toolhost.Result, error) {
	res, err := u.host.Execute(ctx, call)
	if call.Origin != nil && (res.Err == nil || res.Err.Code != toolhost.CodeToolNotFound) {
		u.s.addUsage(ctx, store.Usage{Key: call.Origin.KeyID, ToolCalls: 1})
	}
	return res, err
}
