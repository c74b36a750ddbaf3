package demo

import (
	"strings"
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

// TestReadTurnNative reads a conversation as the proxy sends it in native
// or auto mode: the tools in the request's tools, the results as "tool"
// messages named by the assistant's tool_calls, one round per run.
func TestReadTurnNative(t *testing.T) {
	body := `{"model":"demo-model","tools":[{"type":"function","function":{"name":"create_task"}},{"type":"function","function":{"name":"read_tasks"}}],"messages":[
		{"role":"user","content":"Put a dentist appointment on my task board"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"create_task","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"read_tasks","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"{\"id\":4,\"title\":\"Dentist appointment\",\"done\":false}"},
		{"role":"tool","tool_call_id":"c2","content":"{\"error\":{\"code\":\"API_ERROR\",\"message\":\"down\"}}"}
	]}`
	got := readTurn([]byte(body), today)
	if !got.taught("create_task") || got.taught("delete_task") {
		t.Errorf("tools %v", got.tools)
	}
	if len(got.rounds) != 1 || len(got.rounds[0]) != 2 {
		t.Fatalf("rounds = %+v, want one of two results", got.rounds)
	}
	first, second := got.rounds[0][0], got.rounds[0][1]
	if first.Name != "create_task" || string(first.Content) != `{"id":4,"title":"Dentist appointment","done":false}` || first.Error != nil {
		t.Errorf("first result %+v", first)
	}
	if second.Name != "read_tasks" || second.Error == nil || second.Error.Message != "down" {
		t.Errorf("second result %+v", second)
	}
	if say := reply(got).say; !strings.HasPrefix(say, `Done: "Dentist appointment" is task #4 on your board.`) {
		t.Errorf("the answer = %q", say)
	}
}
