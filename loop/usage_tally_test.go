package loop

import (
	"strings"
	"testing"
)

// TestUsageTally: a round's usage counts only once the round is kept; the
// held chunk goes out as it came after one round and summed after more;
// a finish chunk gets the sum only when the upstream put usage there.
func TestUsageTally(t *testing.T) {
	var u usageTally
	u.round(`{"prompt_tokens":10,"completion_tokens":2}`, false)
	u.hold(`{"id":"c","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2}}`)
	u.endRound()
	if got := u.finalChunk(); !strings.Contains(got, `"prompt_tokens":10`) {
		t.Errorf("one round: %s", got)
	}
	u.round(`{"prompt_tokens":99,"completion_tokens":99}`, false) // a round that failed
	u.round("", false)                                            // the next one starts over
	u.round(`{"prompt_tokens":30,"completion_tokens":5}`, false)
	u.hold(`{"id":"c","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":5}}`)
	u.endRound()
	if got := u.finalChunk(); !strings.Contains(got, `"prompt_tokens":40`) || !strings.Contains(got, `"completion_tokens":7`) {
		t.Errorf("two rounds: %s, want 40 and 7", got)
	}
	if _, ok := u.inlineSum(); ok {
		t.Error("usage came in usage-only chunks, yet the finish chunk would get it")
	}
	u.round(`{"prompt_tokens":1,"completion_tokens":1}`, true)
	u.endRound()
	if sum, ok := u.inlineSum(); !ok || !strings.Contains(sum, `"prompt_tokens":41`) {
		t.Errorf("inline: %s %v", sum, ok)
	}
}
