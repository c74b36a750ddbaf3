package chunk

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// TestThinkSplitEnds: with Ends, a taught block ends the reasoning where it
// starts, as "</think>" does (SPEC rule 7: DeepSeek V4 sometimes omits
// "</think>" before its DSML calls); the block is content, for the
// detector. Whichever comes first ends it, and an end cut at any byte is
// held only while it may still be one.
func TestThinkSplitEnds(t *testing.T) {
	dsml := "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"search\"/>\n</｜DSML｜tool_calls>"
	tests := []struct {
		reply, reasoning, content, thought string
	}{
		{"I will search.\n\n" + dsml, "I will search.\n\n", dsml, "I will search.\n\n"},
		{"thinking</think>\n\nanswer " + dsml, "thinking", "answer " + dsml, "thinking</think>"},
		{"a " + dsml + " then </think> b", "a ", dsml + " then </think> b", "a "},
		{"<‖DSML‖invoke name=\"search\"/>", "", "<‖DSML‖invoke name=\"search\"/>", ""},
		{"a <｜DSML｜ is not a call", "a <｜DSML｜ is not a call", "", "a <｜DSML｜ is not a call"},
	}
	for _, tt := range tests {
		splitAnywhere(t, detect.Openings(detect.DSML), tt.reply, tt.reasoning, tt.content, tt.thought)
	}
	// Held no longer than an end may still be one.
	th := ThinkSplit{Ends: detect.Openings(detect.DSML)}
	if r, c := th.Feed("ok <｜DS"); r != "ok " || c != "" {
		t.Errorf("feed = (%q, %q), want (\"ok \", \"\")", r, c)
	}
	if r, c := th.Feed("X"); r != "<｜DSX" || c != "" {
		t.Errorf("feed = (%q, %q), want (\"<｜DSX\", \"\")", r, c)
	}
}
