package demo

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ok(name, content string) result {
	return result{Name: name, Content: json.RawMessage(content)}
}

func failed(name, code, msg string) result {
	r := result{Name: name}
	r.Error = &struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{code, msg}
	return r
}

const twoTasks = `{"tasks":[{"id":1,"title":"Buy groceries","due":"2026-11-25","priority":1,"done":false},{"id":4,"title":"Dentist appointment","done":false}]}`

// TestRounds follows a prompt over its rounds: each round's results in,
// the model's next calls or its answer out. Answers are read from the
// results: what the tools said, not what was asked.
func TestRounds(t *testing.T) {
	for _, tt := range []struct {
		name    string
		prompt  string
		earlier []result
		rounds  [][]result
		want    []call // the calls of the round after the last results
		say     string // what it says then
	}{
		{name: "the demo's conversation", prompt: Prompt,
			rounds: [][]result{{
				ok("create_task", `{"id":1,"title":"Buy groceries","due":"2026-11-25","priority":1,"done":false}`),
				ok("create_task", `{"id":2,"title":"Call the plumber","due":"2026-11-25","priority":2,"done":false}`),
				ok("create_task", `{"id":3,"title":"Renew my passport","due":"2026-11-25","priority":3,"done":false}`),
			}},
			say: "Done! I created 3 tasks for tomorrow (2026-11-25):\n- #1 Buy groceries\n- #2 Call the plumber\n- #3 Renew my passport\nAnything else?"},
		{name: "one task", prompt: "Put a dentist appointment on my task board for Friday",
			rounds: [][]result{{ok("create_task", `{"id":7,"title":"Dentist appointment","due":"2026-11-27","done":false}`)}},
			say:    `Done: "Dentist appointment" is task #7 on your board, due 2026-11-27. Anything else?`},
		{name: "the list", prompt: "What is on my list?",
			rounds: [][]result{{ok("read_tasks", twoTasks)}},
			say:    "You have 2 tasks:\n- #1 Buy groceries (due 2026-11-25, priority 1)\n- #4 Dentist appointment"},
		{name: "an empty list", prompt: "What is on my list?",
			rounds: [][]result{{ok("read_tasks", `{"tasks":[]}`)}},
			say:    "Your task list is empty. Try “Put a dentist appointment on my task board”."},
		{name: "nothing open tomorrow", prompt: "What do I have to do tomorrow?",
			rounds: [][]result{{ok("read_tasks", `{"tasks":[]}`)}},
			say:    "You have no open tasks due tomorrow."},
		{name: "done by title: looked up", prompt: "Mark the dentist appointment as done",
			rounds: [][]result{{ok("read_tasks", twoTasks)}},
			want:   []call{{"update_task", `{"id":4,"done":true}`}}, say: "I'll mark task #4 as done."},
		{name: "done by title: answered", prompt: "Mark the dentist appointment as done",
			rounds: [][]result{{ok("read_tasks", twoTasks)}, {ok("update_task", `{"id":4,"title":"Dentist appointment","done":true}`)}},
			say:    "Done. Here it is now: #4 Dentist appointment (done)."},
		{name: "delete by title", prompt: "Remove the groceries from my list",
			rounds: [][]result{{ok("read_tasks", twoTasks)}},
			want:   []call{{"delete_task", `{"id":1}`}}, say: "I'll delete task #1; you will be asked to confirm."},
		{name: "no such task", prompt: "Delete the car wash",
			rounds: [][]result{{ok("read_tasks", twoTasks)}},
			say:    "I found no task like \"car wash\" on your list. It holds:\n- #1 Buy groceries (due 2026-11-25, priority 1)\n- #4 Dentist appointment"},
		{name: "which one", prompt: "Delete the appointment",
			rounds: [][]result{{ok("read_tasks", `{"tasks":[{"id":1,"title":"Dentist appointment"},{"id":2,"title":"Doctor appointment"}]}`)}},
			say:    "Several tasks fit \"appointment\"; which one?\n- #1 Dentist appointment\n- #2 Doctor appointment"},
		{name: "deleted", prompt: "Delete task 4",
			rounds: [][]result{{ok("delete_task", `{"deleted":{"id":4,"title":"Dentist appointment","done":false}}`)}},
			say:    `Deleted task #4 "Dentist appointment".`},
		{name: "denied", prompt: "Delete task 4",
			rounds: [][]result{{failed("delete_task", "DENIED", "the user denied this call: not now. Do not retry it unless the user asks again.")}},
			say:    "OK, I did not delete the task: you did not approve it (not now)."},
		{name: "nobody decided", prompt: "Delete card 2",
			rounds: [][]result{{failed("delete_card", "DENIED", "nobody approved this call within 5m0s, so it was not run")}},
			say:    "OK, I did not remove the card: nobody approved it in time."},
		{name: "the tool servers are not running", prompt: "What is on my list?",
			rounds: [][]result{{failed("read_tasks", "EXECUTION_FAILED", "calling webhook: connection refused")}},
			say:    "read_tasks failed: calling webhook: connection refused.\nAre the example tool servers running? To start the example tools: go run ./examples/tools/serve"},
		{name: "a tool's own error", prompt: "Mark task 9 as done",
			rounds: [][]result{{failed("update_task", "API_ERROR", "no task with id 9; read_tasks lists them")}},
			say:    "update_task failed (API_ERROR): no task with id 9; read_tasks lists them"},
		{name: "a card", prompt: "Add a card 'Fix the login page' to the kanban board",
			rounds: [][]result{{ok("create_card", `{"id":1,"title":"Fix the login page","column":"todo"}`)}},
			say:    `Done: "Fix the login page" is card #1 in the todo column of the kanban board.`},
		{name: "a card by its title, from earlier in the conversation", prompt: "Move the login page card to done",
			earlier: []result{ok("create_card", `{"id":3,"title":"Fix the login page","column":"todo"}`)},
			want:    []call{{"move_card", `{"id":3,"column":"done"}`}}, say: "I'll move card #3 to done."},
		{name: "a card moved", prompt: "Move card 3 to done",
			rounds: [][]result{{ok("move_card", `{"card":{"id":3,"title":"Fix the login page","column":"done"},"from":"todo"}`)}},
			say:    `Moved card #3 "Fix the login page" from todo to done.`},
		{name: "a wave", prompt: "Wave at me",
			rounds: [][]result{{ok("expression", `{"ok":true,"expression":"smile","intensity":1}`), ok("motion", `{"ok":true,"motion":"wave"}`)}},
			say:    "\nAnything I can do for you today?"},
		{name: "a schedule", prompt: "Remind me to water the plants every week at 9",
			rounds: [][]result{{ok("create_schedule", `{"id":5,"title":"Water the plants","every":"weekly","at":"09:00","starts":"2026-11-24"}`)}},
			say:    `Done: "Water the plants" is schedule #5, weekly at 09:00, starting 2026-11-24.`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := reply(turn{prompt: tt.prompt, earlier: tt.earlier, rounds: tt.rounds, system: allTools, now: today})
			if diff := cmp.Diff(tt.want, got.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if got.say != tt.say {
				t.Errorf("said\n%q\nwant\n%q", got.say, tt.say)
			}
		})
	}
}

// TestReadTurnReminders reads the prompt out of a user message that holds
// Claude Code's <system-reminder> blocks too, which are not the user's.
func TestReadTurnReminders(t *testing.T) {
	tests := []struct{ content, want string }{
		{`[{"type":"text","text":"<system-reminder>\nEnd commit messages with: Co-Authored-By: Claude\n</system-reminder>"},{"type":"text","text":"<system-reminder>Add a card for every TODO.</system-reminder>\n"},{"type":"text","text":"what's on my task board?"}]`, "what's on my task board?"},
		{`"<system-reminder>create a task</system-reminder> what's on my task board? <system-reminder>x</system-reminder>"`, "what's on my task board?"},
		{`"what's on my task board? <system-reminder>cut off"`, "what's on my task board?"},
	}
	for _, tt := range tests {
		got := readTurn([]byte(`{"messages":[{"role":"user","content":`+tt.content+`}]}`), today)
		if got.prompt != tt.want {
			t.Errorf("prompt of %s = %q, want %q", tt.content, got.prompt, tt.want)
		}
	}
}

// TestReadTurn reads a conversation as the proxy sends it in text mode:
// the last prompt, this turn's results (a hermes frame in a user
// message) and the results from before the prompt.
func TestReadTurn(t *testing.T) {
	body := `{"model":"demo-model","messages":[
		{"role":"system","content":"You are helpful.\n\n## create_card\n…"},
		{"role":"user","content":"Add a card 'Fix the login page' to the kanban board"},
		{"role":"assistant","content":"I'll put that on the kanban board.\n<tool_call>…</tool_call>"},
		{"role":"user","content":"Results of your tool calls.\n\n<tool_response>\n{\"name\":\"create_card\",\"call_id\":\"c1\",\"content\":{\"id\":3,\"title\":\"Fix the login page\",\"column\":\"todo\"}}\n</tool_response>"},
		{"role":"assistant","content":"Done: card #3."},
		{"role":"user","content":[{"type":"text","text":"Move the login page card to done"}]},
		{"role":"assistant","content":"…"},
		{"role":"user","content":"<tool_response>\n{\"name\":\"move_card\",\"call_id\":\"c2\",\"error\":{\"code\":\"API_ERROR\",\"message\":\"no card with id 3\"}}\n</tool_response>\n<tool_response>\nnot json\n</tool_response>"}
	]}`
	got := readTurn([]byte(body), today)
	if got.prompt != "Move the login page card to done" || !got.taught("create_card") || got.taught("move_card") {
		t.Errorf("prompt %q, system %q", got.prompt, got.system)
	}
	if len(got.earlier) != 1 || got.earlier[0].Name != "create_card" || !strings.Contains(string(got.earlier[0].Content), `"id":3`) {
		t.Errorf("earlier = %+v", got.earlier)
	}
	if len(got.rounds) != 1 || len(got.rounds[0]) != 1 || got.rounds[0][0].Error == nil || got.rounds[0][0].Error.Message != "no card with id 3" {
		t.Errorf("rounds = %+v", got.rounds)
	}
}
