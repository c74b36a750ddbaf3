package store

import (
	"strings"
	"testing"
)

// TestCheckNamesQuotesWholeRunes: a refused name is named in part, cut
// between runes, so the error never shows half a rune as a \x escape.
func TestCheckNamesQuotesWholeRunes(t *testing.T) {
	for pad := range 3 {
		name := strings.Repeat("x", pad) + strings.Repeat("€", 40)
		err := checkNames("tool", name)
		if err == nil {
			t.Fatalf("pad %d: %q passed", pad, name)
		}
		if msg := err.Error(); strings.Contains(msg, `\x`) || !strings.Contains(msg, `€…"`) {
			t.Errorf("pad %d: not cut after a whole rune: %s", pad, msg)
		}
	}
}
