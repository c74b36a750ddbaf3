package mcpserve

import (
	"context"
	"log/slog"
)

// sdkLog is the log handed to the SDK: its lines go to the proxy's log,
// except that the session lines of a stateless request ("server session
// connected" / "disconnected", with no session id), which the SDK writes
// at info for every request of that revision — two lines per request,
// and two every 15s per toolstream that watches this one — are debug.
type sdkLog struct{ slog.Handler }

// sessionLines are the SDK's messages a stateless request writes.
var sessionLines = map[string]bool{"server session connected": true, "server session disconnected": true}

func (h sdkLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo && sessionLines[r.Message] && sessionless(r) {
		r.Level = slog.LevelDebug
		if !h.Handler.Enabled(ctx, r.Level) {
			return nil
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h sdkLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return sdkLog{h.Handler.WithAttrs(attrs)}
}

func (h sdkLog) WithGroup(name string) slog.Handler {
	return sdkLog{h.Handler.WithGroup(name)}
}

// sessionless tells whether a record's session_id is empty.
func sessionless(r slog.Record) bool {
	empty := false
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "session_id" {
			empty = a.Value.String() == ""
			return false
		}
		return true
	})
	return empty
}
