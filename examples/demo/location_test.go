package demo

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLocated: a prompt that asks where the user is calls the client's
// get_location when the client gave it (after the prompt's own calls),
// and the answer names the city the client answered, in either shape.
func TestLocated(t *testing.T) {
	const gym = "Add a gym session near me for tomorrow."
	task := ok("create_task", `{"id":4,"title":"Gym session near me","due":"2026-11-25","done":false}`)
	for _, tt := range []struct {
		name   string
		prompt string
		system string
		rounds [][]result
		want   []call
		say    string
	}{
		{name: "asked", prompt: "Where am I?", system: allTools + "\n## get_location",
			want: []call{{"get_location", "{}"}}, say: "Let me see where you are."},
		{name: "answered from an object", prompt: "Where am I?", system: allTools + "\n## get_location",
			rounds: [][]result{{ok("get_location", `{"city":"Paris"}`)}}, say: "You are in Paris."},
		{name: "answered from a string", prompt: "What is my location?", system: allTools + "\n## get_location",
			rounds: [][]result{{ok("get_location", `"Lyon"`)}}, say: "You are in Lyon."},
		{name: "the task first", prompt: gym, system: allTools + "\n## get_location",
			want: []call{{"create_task", `{"title":"Gym session near me","due":"2026-11-25"}`}},
			say:  "Sure — I'll put \"Gym session near me\" on your board for tomorrow."},
		{name: "then where", prompt: gym, system: allTools + "\n## get_location",
			rounds: [][]result{{task}}, want: []call{{"get_location", "{}"}}, say: "Let me see where you are."},
		{name: "then both", prompt: gym, system: allTools + "\n## get_location",
			rounds: [][]result{{task}, {ok("get_location", `"Paris"`)}},
			say:    "Done: \"Gym session near me\" is task #4 on your board, due 2026-11-25. Anything else? You are in Paris."},
		{name: "no get_location from the client", prompt: "Where am I?", system: allTools, say: helpText},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := reply(turn{prompt: tt.prompt, rounds: tt.rounds, system: tt.system, now: today})
			if diff := cmp.Diff(tt.want, got.calls); diff != "" || got.say != tt.say {
				t.Errorf("calls (-want +got):\n%s\nsay %q, want %q", diff, got.say, tt.say)
			}
		})
	}
}
