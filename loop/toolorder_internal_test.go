package loop

import (
	"slices"
	"strings"
	"testing"

	"github.com/valyala/fastjson"
)

// TestInSentOrder: tools sent before keep their places round after round;
// a tool shown since comes after them, wherever the client listed it.
func TestInSentOrder(t *testing.T) {
	tool := func(name string) string { return `{"type":"function","function":{"name":"` + name + `"}}` }
	for _, tc := range []struct {
		name   string
		rounds [][]string // the tools each round has, in the order given
		want   []string   // the last round's order
	}{
		{name: "first round as given", rounds: [][]string{{"b", "a"}}, want: []string{"b", "a"}},
		{name: "a client tool shown since goes last", rounds: [][]string{{"a", "c", "s"}, {"a", "b", "c", "s"}}, want: []string{"a", "c", "s", "b"}},
		{name: "three rounds", rounds: [][]string{{"a", "s"}, {"a", "s", "f"}, {"a", "b", "s", "f", "g"}}, want: []string{"a", "s", "f", "b", "g"}},
		{name: "a tool gone is left out", rounds: [][]string{{"a", "b"}, {"b"}}, want: []string{"b"}},
		{name: "a custom tool by its name", rounds: [][]string{{"a"}, {"x", "a"}}, want: []string{"a", "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &turnRun{}
			var got []string
			for _, names := range tc.rounds {
				var p fastjson.Parser
				var parts []string
				for _, n := range names {
					if n == "x" {
						parts = append(parts, `{"type":"custom","name":"x"}`)
						continue
					}
					parts = append(parts, tool(n))
				}
				v, err := p.Parse("[" + strings.Join(parts, ",") + "]")
				if err != nil {
					t.Fatal(err)
				}
				got = got[:0]
				for _, o := range tr.inSentOrder(v.GetArray()) {
					got = append(got, toolKey(o))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("order %v, want %v", got, tc.want)
			}
		})
	}
}
