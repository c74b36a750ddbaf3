package mcp

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/toolstream/toolstream/toolhost/clip"
)

const (
	// maxStderrLine cuts a stderr line in the log; a server printing a
	// megabyte without a newline must not make one huge log record.
	maxStderrLine = 1024
	// stderrBurst lines may be logged at once, then stderrPerSecond on
	// average: a crash loop printing a stack trace per restart cannot
	// flood the log. What is dropped is counted and said.
	stderrBurst     = 50
	stderrPerSecond = 5
)

// stderrLog writes stdio servers' stderr lines to the log with the
// server's name, rate-limited across every process of one server entry.
type stderrLog struct {
	log *slog.Logger
	now func() time.Time

	mu      sync.Mutex
	tokens  float64
	last    time.Time
	dropped int
}

func newStderrLog(log *slog.Logger) *stderrLog {
	return &stderrLog{log: log, now: time.Now, tokens: stderrBurst}
}

// process returns the writer for one process's stderr.
func (l *stderrLog) process() *lineWriter { return &lineWriter{l: l} }

// line logs one line if the rate allows, at warn when it looks like an
// error and info otherwise.
func (l *stderrLog) line(text string) {
	text = strings.TrimRight(text, "\r")
	if strings.TrimSpace(text) == "" {
		return
	}
	l.mu.Lock()
	now := l.now()
	if !l.last.IsZero() {
		l.tokens = min(stderrBurst, l.tokens+now.Sub(l.last).Seconds()*stderrPerSecond)
	}
	l.last = now
	if l.tokens < 1 {
		l.dropped++
		l.mu.Unlock()
		return
	}
	l.tokens--
	dropped := l.dropped
	l.dropped = 0
	l.mu.Unlock()

	ctx := context.Background()
	if dropped > 0 {
		l.log.LogAttrs(ctx, slog.LevelWarn, "MCP server stderr lines dropped (rate limit)", slog.Int("dropped", dropped))
	}
	level := slog.LevelInfo
	if looksLikeError(text) {
		level = slog.LevelWarn
	}
	l.log.LogAttrs(ctx, level, "MCP server stderr", slog.String("line", text))
}

func looksLikeError(s string) bool {
	s = strings.ToLower(s)
	for _, w := range []string{"error", "fatal", "panic", "exception", "traceback"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// lineWriter splits one process's stderr into lines; a line longer than
// maxStderrLine is cut and the rest of it skipped.
type lineWriter struct {
	l    *stderrLog
	mu   sync.Mutex
	buf  []byte
	skip bool // inside a line already cut
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !w.skip {
			room := maxStderrLine - len(w.buf)
			if len(chunk) > room {
				w.buf = append(w.buf, clip.Prefix(chunk, room)...)
				w.emit(true)
				w.skip = true
			} else {
				w.buf = append(w.buf, chunk...)
			}
		}
		if i < 0 {
			break
		}
		if !w.skip {
			w.emit(false)
		}
		w.skip = false
		p = p[i+1:]
	}
	return n, nil
}

// flush logs a last line without a newline.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.skip && len(w.buf) > 0 {
		w.emit(false)
	}
}

func (w *lineWriter) emit(cut bool) {
	// The cut ends where a rune ends; invalid bytes from the process
	// become U+FFFD.
	text := strings.ToValidUTF8(string(w.buf), "\uFFFD")
	if cut {
		text += " …[cut]"
	}
	w.buf = w.buf[:0]
	w.l.line(text)
}
