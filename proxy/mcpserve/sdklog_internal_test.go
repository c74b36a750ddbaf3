package mcpserve

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestSDKLog: the SDK's session lines of a stateless request (no session
// id) are debug, a real session's stay info, and other lines pass as
// they are, attributes and groups kept.
func TestSDKLog(t *testing.T) {
	for _, tc := range []struct {
		name  string
		debug bool // the proxy logs at debug
		log   func(*slog.Logger)
		want  string // "" : nothing logged
	}{
		{"stateless connect", false, func(l *slog.Logger) { l.Info("server session connected", "session_id", "") }, ""},
		{"stateless disconnect", false, func(l *slog.Logger) { l.Info("server session disconnected", "session_id", "") }, ""},
		{"stateless at debug", true, func(l *slog.Logger) { l.Info("server session connected", "session_id", "") }, `level=DEBUG msg="server session connected"`},
		{"a session", false, func(l *slog.Logger) { l.Info("server session connected", "session_id", "ABC") }, `level=INFO msg="server session connected" session_id=ABC`},
		{"another line", false, func(l *slog.Logger) { l.Info("session initialized", "session_id", "") }, `level=INFO msg="session initialized"`},
		{"with attrs", false, func(l *slog.Logger) { l.With("k", "v").Info("server session disconnected", "session_id", "") }, ""},
		{"a warning", false, func(l *slog.Logger) { l.WithGroup("g").Warn("server session connected", "session_id", "") }, `level=WARN`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			level := slog.LevelInfo
			if tc.debug {
				level = slog.LevelDebug
			}
			tc.log(slog.New(sdkLog{slog.NewTextHandler(&b, &slog.HandlerOptions{Level: level})}))
			got := b.String()
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("logged %q, want %q", got, tc.want)
			}
		})
	}
}
