package detect_test

import (
	"strings"
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// TestCallAt: a call says where its block stood in the text the same
// Feed or End returned, so text the model wrote after the call, arriving
// in the piece that closed the block, is shown after the call's activity.
// Every split of the reply puts each call at the same place in the text.
func TestCallAt(t *testing.T) {
	const second = "<tool_call>\n" + `{"name": "get_time", "arguments": {}}` + "\n</tool_call>"
	for _, tc := range []struct {
		name, reply string
		opts        detect.Options
		// want is the visible text with "|" where each call stood.
		want string
	}{
		{"text on both sides", "Hi there! " + weather + "It's good to see you.", hermesTaught, "Hi there! |It's good to see you."},
		{"two calls between words", "A " + weather + "B " + second + "C", hermesTaught, "A |B |C"},
		{"a call at the end", "Sure. " + weather, hermesTaught, "Sure. |"},
		{"an unclosed call at the end", "Sure. <tool_call>\n{\"name\": \"get_weather\"", hermesTaught, "Sure. |"},
		{"a cut rune after the call", "Ok " + weather + "é done", hermesTaught, "Ok |é done"},
		{"xml", "Let me look. <tool_call><function=get_weather><parameter=city>Paris</parameter></function></tool_call>Done.", xmlTaught, "Let me look. |Done."},
	} {
		for _, size := range []int{0, 1, 2, 3, 5, 7, 64} {
			d := detect.New(tc.opts)
			var got strings.Builder
			place := func(vis string, calls []detect.Call) {
				at := 0
				for _, c := range calls {
					got.WriteString(vis[at:c.At] + "|")
					at = c.At
				}
				got.WriteString(vis[at:])
			}
			for _, piece := range pieces(tc.reply, size) {
				place(d.Feed(piece))
			}
			place(d.End())
			if got.String() != tc.want {
				t.Errorf("%s, pieces of %d: %q, want %q", tc.name, size, got.String(), tc.want)
			}
		}
	}
}

// pieces cuts s into pieces of n bytes (the whole of s for 0).
func pieces(s string, n int) []string {
	if n == 0 {
		return []string{s}
	}
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}
