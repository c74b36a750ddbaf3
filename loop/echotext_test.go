package loop

import (
	"strings"
	"testing"
)

// TestEchoText checks that an echoText reads back every write in order,
// whether its writes repeat the model's text, part from it, or come
// before any round.
func TestEchoText(t *testing.T) {
	type step struct{ raw, write string } // raw is written to the round's text first
	tests := []struct {
		name  string
		steps []step
		round int // steps from here on are a second round's (-1: one round)
		owned bool
	}{
		{"repeats", []step{{"Hello", "Hello"}, {", world", ", world"}}, -1, false},
		{"lags behind", []step{{"Hello <to", "Hello "}, {"ol", ""}, {"x", "<toolx"}}, -1, false},
		{"markup taken out", []step{{"a <tool_call>x</tool_call>", "a "}, {" b", " b"}}, -1, true},
		{"card in between", []step{{"a", "a"}, {"", "[card]"}, {"b", "b"}}, -1, true},
		{"before any text", []step{{"", "[card]"}, {"a", "a"}}, -1, true},
		{"second round", []step{{"a", "a"}, {"b", "b"}}, 1, true},
		{"first round blank", []step{{"", ""}, {"b", "b"}}, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e echoText
			rounds := []*strings.Builder{{}, {}}
			e.follow(rounds[0])
			cur := rounds[0]
			var want strings.Builder
			for i, s := range tt.steps {
				if i == tt.round {
					cur = rounds[1]
					e.follow(cur)
				}
				cur.WriteString(s.raw)
				e.WriteString(s.write)
				want.WriteString(s.write)
				if got := e.String(); got != want.String() {
					t.Fatalf("after step %d: %q, want %q", i, got, want.String())
				}
			}
			if e.owned != tt.owned {
				t.Errorf("owned = %v, want %v", e.owned, tt.owned)
			}
		})
	}
}

// TestEchoTextWriteLast: text known to be the last bytes of the round's
// text is taken without a look when the echo had caught up, and compared
// when it had not (text held back earlier and shown since).
func TestEchoTextWriteLast(t *testing.T) {
	var raw strings.Builder
	var e echoText
	e.follow(&raw)
	raw.WriteString("Hello")
	e.writeLast("Hello")
	raw.WriteString(" <")
	e.WriteString(" ") // "<" held back
	raw.WriteString("<x")
	e.writeLast("<x") // behind by the held "<": not the last bytes it repeats
	if got, want := e.String(), "Hello <x"; got != want || !e.owned {
		t.Fatalf("%q (owned %v), want %q, owned", got, e.owned, want)
	}
	var caught echoText
	caught.follow(&raw)
	raw.WriteString("more")
	caught.writeLast("more")
	if got := caught.String(); got != "more" || caught.owned {
		t.Fatalf("%q (owned %v), want \"more\" as a view", got, caught.owned)
	}
}
