package detect

import (
	"strings"
	"testing"
)

// TestKimiBadSectionEndKeepsRunes: the end of a section closed by the
// wrong token is quoted to the model from a rune boundary, never from
// the middle of one (a \x escape in the message).
func TestKimiBadSectionEndKeepsRunes(t *testing.T) {
	for pad := range 3 {
		body := strings.Repeat("€", 10) + strings.Repeat("x", pad) + "<|tool_nope"
		p := parseKimi(body)
		if p.err == nil {
			t.Fatalf("pad %d: %q parsed", pad, body)
		}
		if msg := p.err.Error(); strings.Contains(msg, `\x`) {
			t.Errorf("pad %d: a rune was cut in half: %s", pad, msg)
		}
	}
}
