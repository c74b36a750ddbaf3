package chunk

import (
	"strconv"
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
		check := func(how string, pieces []string) {
			t.Helper()
			th := ThinkSplit{Ends: detect.Openings(detect.DSML)}
			var r, c string
			for _, p := range pieces {
				pr, pc := th.Feed(p)
				r, c = r+pr, c+pc
			}
			r += th.End()
			if r != tt.reasoning || c != tt.content || th.Thought() != tt.thought {
				t.Errorf("%q %s: reasoning %q content %q thought %q, want %q %q %q", tt.reply, how, r, c, th.Thought(), tt.reasoning, tt.content, tt.thought)
			}
		}
		for i := 0; i <= len(tt.reply); i++ {
			check("cut at "+strconv.Itoa(i), []string{tt.reply[:i], tt.reply[i:]})
		}
		var bytes []string
		for i := 0; i < len(tt.reply); i++ {
			bytes = append(bytes, tt.reply[i:i+1])
		}
		check("byte by byte", bytes)
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
