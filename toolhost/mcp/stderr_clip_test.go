package mcp

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/toolhost/clip"
)

// TestStderrLineCutBetweenRunes: a stderr line over maxStderrLine is cut
// where a rune ends, so the log shows no U+FFFD for half of one.
func TestStderrLineCutBetweenRunes(t *testing.T) {
	for pad := range 3 {
		lb := &logBuffer{}
		w := newStderrLog(slog.New(slog.NewTextHandler(lb, nil))).process()
		_, _ = w.Write([]byte(strings.Repeat("x", pad) + strings.Repeat("€", maxStderrLine) + "\n"))
		if got := lb.String(); strings.ContainsRune(got, '\uFFFD') || !strings.Contains(got, "€ …[cut]") {
			t.Errorf("pad %d: the line ends %q", pad, clip.Suffix(got, 60))
		}
	}
}
