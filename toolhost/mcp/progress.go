package mcp

import (
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/toolhost"
)

// track gives the call's request a progress token of its own, so that the
// server may report progress (MCP's _meta.progressToken: a server sends
// notifications/progress only for requests that carry one), and routes the
// notifications with that token to the call's listener until the returned
// func is called. Tokens are counted per server, not taken from the call
// id: ids come from upstreams and are not unique across turns.
func (s *server) track(call toolhost.Call, params *mcp.CallToolParams) (untrack func()) {
	token := "ts-" + strconv.FormatUint(s.tokens.Add(1), 10)
	params.SetProgressToken(token)
	s.running.Store(token, call)
	return func() { s.running.Delete(token) }
}

// progress hands a notifications/progress to the call it belongs to. One
// for a call no longer running or for a token toolstream never sent is
// dropped. NOTE(progress): the SDK hands notifications to this handler on
// a queue of their own while the result goes straight to the caller, so a
// server's last notification can lose the race with its result and be
// dropped; progress is a sign of life, the result says how it ended. It
// does not block: a slow client must not hold up the session's queue.
func (s *server) progress(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}

	token, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	v, ok := s.running.Load(token)
	if !ok {
		return
	}
	toolhost.ReportProgress(v.(toolhost.Call), toolhost.ProgressUpdate{Progress: p.Progress, Total: p.Total, Message: p.Message})
}
