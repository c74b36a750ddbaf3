package chunk_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/chunk"
)

// TestSpanSplit: Gemma 4's thought channel and Seed's <seed:think> go out
// as reasoning, their tokens nowhere, however the content is cut.
func TestSpanSplit(t *testing.T) {
	for _, tc := range []struct{ name, in, reasoning, content string }{
		{"prose", "a <b> c < d", "", "a <b> c < d"},
		{"Gemma 4's thought channel (vLLM's test_gemma4_regex_and_bare_calls.py)",
			"<|channel>thought\nI need to read the entry source file.\n<channel|><|tool_call>call:bash{}<tool_call|>",
			"I need to read the entry source file.\n", "<|tool_call>call:bash{}<tool_call|>"},
		{"Seed's think span (vLLM's test_seed_oss_tool_parser.py)",
			"<seed:think>\nThe current thinking budget is 0.\n</seed:think>\n<seed:tool_call>x</seed:tool_call>",
			"\nThe current thinking budget is 0.\n", "\n<seed:tool_call>x</seed:tool_call>"},
		{"text around, two spans", "A<seed:think>r1</seed:think>B<|channel>thought r2<channel|>C", "r1 r2", "ABC"},
		{"a span left open is reasoning to the end", "ok <seed:think>still thinking <seed", "still thinking <seed", "ok "},
		{"a cut opening at the end is content", "ok <|chan", "", "ok <|chan"},
		{"a channel name cut at the end", "<|channel>tho", "tho", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(how string, pieces []string) {
				var p chunk.SpanSplit
				var r, c string
				for _, s := range pieces {
					a, b := p.Feed(s)
					r, c = r+a, c+b
				}
				a, b := p.End()
				r, c = r+a, c+b
				if r != tc.reasoning || c != tc.content {
					t.Errorf("%s: reasoning %q, content %q; want %q, %q", how, r, c, tc.reasoning, tc.content)
				}
			}
			check("whole", []string{tc.in})
			var bytes []string
			for i := range len(tc.in) {
				bytes = append(bytes, tc.in[i:i+1])
			}
			check("byte at a time", bytes)
			for cut := 1; cut < len(tc.in); cut++ {
				check("cut", []string{tc.in[:cut], tc.in[cut:]})
			}
		})
	}
}

func TestSpanSplitProseAllocatesNothing(t *testing.T) {
	var p chunk.SpanSplit
	if n := testing.AllocsPerRun(100, func() { p.Feed("plain prose, no tag") }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
