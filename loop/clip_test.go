package loop_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolstream/toolstream/loop"
)

// TestClippedTextKeepsRunes: every message loop shortens for a client or
// the model is cut between runes, wherever the limit falls in a
// multi-byte one.
func TestClippedTextKeepsRunes(t *testing.T) {
	// Padding of 0 to 2 bytes moves each limit through every byte of a
	// three-byte rune.
	for pad := range 3 {
		euros := strings.Repeat("x", pad) + strings.Repeat("€", 200)
		for _, tc := range []struct {
			name string
			text func() string
			// quotes: the message quotes the text, clipped; otherwise
			// it quotes none of it.
			quotes bool
		}{
			{"upstream status error", func() string {
				return (&loop.UpstreamError{Upstream: "u", Status: 502, Body: []byte(euros)}).Error()
			}, true},
			{"upstream error event", func() string {
				return (&loop.UpstreamError{Upstream: "u", Body: []byte(euros)}).Error()
			}, true},
			{"body that is not JSON", func() string {
				_, err := loop.ParseRequest([]byte(`{"model": "m", ` + euros))
				return err.Error()
			}, false},
			{"duplicate key", func() string {
				_, err := loop.ParseRequest([]byte(`{"` + euros + `": 1, "` + euros + `": 2}`))
				return err.(*loop.RequestError).Param + " " + err.Error()
			}, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s := tc.text()
				if !utf8.ValidString(s) {
					t.Errorf("pad %d: a rune was cut in half: %q", pad, s)
				}
				if tc.quotes && !strings.Contains(s, "€…") {
					t.Errorf("pad %d: not clipped after a whole rune: %q", pad, s)
				}
			})
		}
	}
}
