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
		// llama.cpp's tests/test-chat.cpp, Gemma 4's edge cases.
		{"an empty thought", "<|channel>thought<channel|>Hello, world!\nWhat's up?", "", "Hello, world!\nWhat's up?"},
		{"a stray close after the answer", "<|channel>thought\n<channel|>Hello, world!\nWhat's up?<channel|>", "", "Hello, world!\nWhat's up?"},
		{"an empty thought after the answer", "<|channel>thought\n<channel|>Hello, world!\nWhat's up?<|channel>thought\n<channel|><channel|>", "", "Hello, world!\nWhat's up?"},
		{"the opening token twice", "<|channel><|channel>thought\n<channel|>Hello, world!\nWhat's up?", "", "Hello, world!\nWhat's up?"},
		{"reasoning and content", "<|channel>thought\nI'm\nthinking<channel|>Hello, world!\nWhat's up?", "I'm\nthinking", "Hello, world!\nWhat's up?"},
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

// FuzzSpanSplit: whatever the content and however it is cut, the split
// gives the same reasoning and content as whole, and loses nothing but
// the spans' tokens.
func FuzzSpanSplit(f *testing.F) {
	f.Add("<|channel>thought\nx<channel|>y<seed:think>z</seed:think>", uint8(3))
	f.Add("a <|chan <seed:th </seed:think", uint8(1))
	f.Fuzz(func(t *testing.T, in string, step uint8) {
		run := func(n int) (string, string) {
			var p chunk.SpanSplit
			var r, c string
			for s := in; s != ""; {
				k := min(n, len(s))
				a, b := p.Feed(s[:k])
				r, c, s = r+a, c+b, s[k:]
			}
			a, b := p.End()
			return r + a, c + b
		}
		r0, c0 := run(len(in) + 1)
		r1, c1 := run(int(step%16) + 1)
		if r0 != r1 || c0 != c1 {
			t.Fatalf("whole: %q %q; cut every %d: %q %q", r0, c0, step%16+1, r1, c1)
		}
		if len(r0)+len(c0) > len(in) {
			t.Fatalf("more out than in: %q %q from %q", r0, c0, in)
		}
	})
}
