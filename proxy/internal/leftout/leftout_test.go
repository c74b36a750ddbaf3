package leftout_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/proxy/internal/leftout"
)

// TestNote: one line per route, key and kind per hour, by the logger's
// clock.
func TestNote(t *testing.T) {
	type note struct {
		at    time.Duration // after the start
		route string
		key   string
		kinds []string
	}
	tests := []struct {
		name  string
		notes []note
		want  []string // the lines' route/key/kind, in order
	}{
		{"once", []note{{0, "/v1/responses", "ci", []string{"tool image_generation"}}},
			[]string{"/v1/responses ci tool image_generation"}},
		{"the same kind within the hour is quiet", []note{
			{0, "/v1/responses", "ci", []string{"tool image_generation"}},
			{30 * time.Minute, "/v1/responses", "ci", []string{"tool image_generation"}},
			{59 * time.Minute, "/v1/responses", "ci", []string{"tool image_generation", "tool file_search"}},
		}, []string{"/v1/responses ci tool image_generation", "/v1/responses ci tool file_search"}},
		{"an hour later it is logged again", []note{
			{0, "/v1/responses", "ci", []string{"tool image_generation"}},
			{time.Hour, "/v1/responses", "ci", []string{"tool image_generation"}},
		}, []string{"/v1/responses ci tool image_generation", "/v1/responses ci tool image_generation"}},
		{"each key and route on its own", []note{
			{0, "/v1/responses", "ci", []string{"tool web_search"}},
			{time.Minute, "/v1/responses", "dev", []string{"tool web_search"}},
			{2 * time.Minute, "/v1/messages", "dev", []string{"tool web_search"}},
		}, []string{"/v1/responses ci tool web_search", "/v1/responses dev tool web_search", "/v1/messages dev tool web_search"}},
		{"nothing left out, no line", []note{{0, "/v1/responses", "ci", nil}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: dropTime}))
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			now := start
			l := leftout.New(log, func() time.Time { return now })
			for _, n := range tt.notes {
				now = start.Add(n.at)
				l.Note(context.Background(), n.route, n.key, n.kinds)
			}
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
				if line == "" {
					continue
				}
				if !strings.Contains(line, "level=INFO") || !strings.Contains(line, `msg="left out of the request"`) {
					t.Errorf("line %q: want an info line \"left out of the request\"", line)
				}
				got = append(got, attr(line, "route")+" "+attr(line, "key")+" "+attr(line, "left_out"))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("lines:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestNilLogger: a route without a logger notes nothing and does not
// panic.
func TestNilLogger(t *testing.T) {
	var l *leftout.Logger
	l.Note(context.Background(), "/v1/responses", "", []string{"tool x"})
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// attr is the value of key=… in a text line; quoted values unquoted.
func attr(line, key string) string {
	i := strings.Index(line, " "+key+"=")
	if i < 0 {
		return ""
	}
	v := line[i+len(key)+2:]
	if strings.HasPrefix(v, `"`) {
		end := strings.Index(v[1:], `"`)
		return v[1 : end+1]
	}
	if end := strings.IndexByte(v, ' '); end >= 0 {
		return v[:end]
	}
	return v
}
