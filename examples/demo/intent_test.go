package demo

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// today is the day the tests' dates count from: a Tuesday.
var today = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

// allTools is a system prompt that teaches every example tool.
const allTools = "## create_task\n## read_tasks\n## update_task\n## delete_task\n## create_schedule\n" +
	"## create_card\n## move_card\n## delete_card\n## expression\n## motion\n"

// TestIntentCalls is what a newcomer types and the calls the scripted
// model makes for it in its first round, arguments taken from the words.
// A prompt it has no part for gets an answer and no call.
func TestIntentCalls(t *testing.T) {
	for _, tt := range []struct {
		prompt string
		want   []call
	}{
		// Tasks: created from the words between the verb and the board,
		// with the day they name.
		{"Put a dentist appointment on my task board", []call{{"create_task", `{"title":"Dentist appointment"}`}}},
		{"Put a dentist appointment on my task board for Friday, and wave at me", []call{{"create_task", `{"title":"Dentist appointment","due":"2026-11-27"}`}}},
		{"Put a dentist appointment on my task board tomorrow", []call{{"create_task", `{"title":"Dentist appointment","due":"2026-11-25"}`}}},
		{"Remind me to buy milk on Friday", []call{{"create_task", `{"title":"Buy milk","due":"2026-11-27"}`}}},
		{"Add a task to call mom in 3 days", []call{{"create_task", `{"title":"Call mom","due":"2026-11-27"}`}}},
		{"Can you add milk to my to-do list?", []call{{"create_task", `{"title":"Milk"}`}}},
		{"I need to call the plumber tomorrow", []call{{"create_task", `{"title":"Call the plumber","due":"2026-11-25"}`}}},
		{"Remind me tomorrow to call the bank", []call{{"create_task", `{"title":"Call the bank","due":"2026-11-25"}`}}},
		{"Schedule a dentist appointment for next Monday", []call{{"create_task", `{"title":"Dentist appointment","due":"2026-11-30"}`}}},
		{"Add a dentist appointment on Friday at 3pm to my calendar", []call{{"create_task", `{"title":"Dentist appointment at 3pm","due":"2026-11-27"}`}}},
		{"Please add 'Call Alice' and 'Email Bob' to my list", []call{
			{"create_task", `{"title":"Call Alice","priority":1}`}, {"create_task", `{"title":"Email Bob","priority":2}`},
		}},
		{"Create a task called 'Pay rent' due Dec 1st, high priority", []call{{"create_task", `{"title":"Pay rent","due":"2026-12-01","priority":1}`}}},
		{"Put “Renew my passport” on my list for next week", []call{{"create_task", `{"title":"Renew my passport","due":"2026-12-01"}`}}},
		{"Add a task for Tuesday: book the flights", []call{{"create_task", `{"title":"Book the flights","due":"2026-12-01"}`}}},
		{Prompt, []call{
			{"create_task", `{"title":"Buy groceries","due":"2026-11-25","priority":1}`},
			{"create_task", `{"title":"Call the plumber","due":"2026-11-25","priority":2}`},
			{"create_task", `{"title":"Renew my passport","due":"2026-11-25","priority":3}`},
		}},
		{"Remind me to water the plants every week at 9", []call{{"create_schedule", `{"title":"Water the plants","every":"weekly","at":"09:00"}`}}},
		{"Add a task to take out the trash every Friday at 7pm", []call{{"create_schedule", `{"title":"Take out the trash","every":"weekly","at":"19:00","starts":"2026-11-27"}`}}},

		// Listing, with the filters the words ask for.
		{"What is on my list?", []call{{"read_tasks", `{}`}}},
		{"What do I have to do tomorrow?", []call{{"read_tasks", `{"status":"open","due":"2026-11-25"}`}}},
		{"Which tasks are done?", []call{{"read_tasks", `{"status":"done"}`}}},
		{"Show me my tasks", []call{{"read_tasks", `{}`}}},

		// Changes to a task named by its number: at once.
		{"Mark task 2 as done", []call{{"update_task", `{"id":2,"done":true}`}}},
		{"Reopen task 2", []call{{"update_task", `{"id":2,"done":false}`}}},
		{"Rename task 1 to Buy bread", []call{{"update_task", `{"id":1,"title":"Buy bread"}`}}},
		{"Move task 3 to Friday", []call{{"update_task", `{"id":3,"due":"2026-11-27"}`}}},
		{"Make task 2 urgent", []call{{"update_task", `{"id":2,"priority":1}`}}},
		{"Delete task 2", []call{{"delete_task", `{"id":2}`}}},
		{"Please remove #4", []call{{"delete_task", `{"id":4}`}}},
		// … named by its title: looked up first (TestRounds).
		{"Mark the dentist appointment as done", []call{{"read_tasks", `{}`}}},
		{"Remove the dentist appointment from my list", []call{{"read_tasks", `{}`}}},
		{"I finished the groceries", []call{{"read_tasks", `{}`}}},

		// The kanban board.
		{"Add a card 'Fix the login page' to the kanban board", []call{{"create_card", `{"title":"Fix the login page","column":"todo"}`}}},
		{"Add a card “Fix the login page” to the kanban board", []call{{"create_card", `{"title":"Fix the login page","column":"todo"}`}}},
		{"Add a card to write the release notes in the doing column", []call{{"create_card", `{"title":"Write the release notes","column":"doing"}`}}},
		{"put a card for the signup bug in doing", []call{{"create_card", `{"title":"Signup bug","column":"doing"}`}}},
		{"Move card 1 to done", []call{{"move_card", `{"id":1,"column":"done"}`}}},
		{"Move card #2 to in progress", []call{{"move_card", `{"id":2,"column":"doing"}`}}},
		{"Delete card 3", []call{{"delete_card", `{"id":3}`}}},

		// The avatar: a wave comes with a smile.
		{"Wave at me", []call{{"expression", `{"name":"smile"}`}, {"motion", `{"name":"wave"}`}}},
		{"Smile", []call{{"expression", `{"name":"smile"}`}}},
		{"Can you nod?", []call{{"motion", `{"name":"nod"}`}}},
		{"Laugh and jump", []call{{"expression", `{"name":"laugh"}`}, {"motion", `{"name":"jump"}`}}},

		// No call: a question back, or what it can do.
		{"Say hello", nil},
		{"What's the weather like?", nil},
		{"Create a poem", nil},
		{"Move card 1", nil},
		{"Delete", nil},
		{"Change task 2", nil},
		{"Delete all tasks", nil},
		{"Mark everything as done", nil},
		{"Add a task", nil},
		{"Add a card to the kanban board", nil},
	} {
		got := reply(turn{prompt: tt.prompt, system: allTools, now: today})
		if diff := cmp.Diff(tt.want, got.calls); diff != "" {
			t.Errorf("%q: calls (-want +got):\n%s", tt.prompt, diff)
		}
		if len(got.calls) == 0 && got.say == "" {
			t.Errorf("%q: no call and nothing said", tt.prompt)
		}
	}
}

// TestIntentWords: what the model says before its calls repeats what it
// understood, and a prompt it cannot act on gets help, not silence.
func TestIntentWords(t *testing.T) {
	for _, tt := range []struct{ prompt, want string }{
		{Prompt, "Sure — I'll put those three on your board for tomorrow.\n<tool_call>\n"},
		{"Put a dentist appointment on my task board", "Sure — I'll put \"Dentist appointment\" on your board.\n<tool_call>\n"},
		{"Add a task to call mom in 3 days", "Sure — I'll put \"Call mom\" on your board in 3 days.\n"},
		{"Delete task 2", "I'll delete task #2; you will be asked to confirm.\n"},
		{"Mark task 2 as done and make it priority 1", "I'll mark task #2 as done and give it priority 1.\n"},
		{"Mark task 2 as urgent", "I'll give task #2 priority 1.\n"},
		{"Wave at me", "Hi there! <tool_call>\n{\"name\": \"expression\", \"arguments\": {\"name\":\"smile\"}}\n</tool_call>It's good to see you. <tool_call>"},
		{"Say hello", "Hello! I'm toolstream's scripted demo model"},
		{"What's the weather like?", "- “What is on my list?”\n"},
		{"Move card 1", "To which column?"},
		{"Move the login page card to done", "Which card?"},
	} {
		if got := render(reply(turn{prompt: tt.prompt, system: allTools, now: today})); !strings.Contains(got, tt.want) {
			t.Errorf("%q: the model wrote %q, want it to contain %q", tt.prompt, got, tt.want)
		}
	}
}

// TestIntentUntaught: the model calls only tools the proxy taught it.
func TestIntentUntaught(t *testing.T) {
	got := reply(turn{prompt: "Wave at me", system: "## create_task\n", now: today})
	if len(got.calls) != 0 || !strings.Contains(got.say, "did not give me the motion tool") {
		t.Errorf("untaught tool: %+v", got)
	}
}

// TestWhen: the dates people write, counted from a Tuesday.
func TestWhen(t *testing.T) {
	for _, tt := range []struct{ in, date, words string }{
		{"today", "2026-11-24", "today"},
		{"by tomorrow", "2026-11-25", "tomorrow"},
		{"the day after tomorrow", "2026-11-26", "the day after tomorrow"},
		{"on Friday", "2026-11-27", "Friday"},
		{"on Tuesday", "2026-12-01", "Tuesday"}, // a week away, not today
		{"next week", "2026-12-01", "next week"},
		{"in two days", "2026-11-26", "in two days"},
		{"in 2 weeks", "2026-12-08", "in 2 weeks"},
		{"due 2027-01-15", "2027-01-15", "2027-01-15"},
		{"on Dec 24th", "2026-12-24", "December 24"},
		{"on March 3", "2027-03-03", "March 3"}, // passed this year
		{"this week", "", ""},
		{"someday", "", ""},
	} {
		w, ok := findWhen("do it "+tt.in, today)
		if w.date != tt.date || w.words != tt.words || ok != (tt.date != "") {
			t.Errorf("%q: %q %q %v, want %q %q", tt.in, w.date, w.words, ok, tt.date, tt.words)
		}
	}
}

// FuzzReply: whatever the prompt and the results, the model answers
// without panicking, and every call it writes is one JSON object.
func FuzzReply(f *testing.F) {
	for _, p := range []string{Prompt, "Put a dentist appointment on my task board tomorrow", "Mark the dentist appointment as done",
		"Move card 1 to done", "Wave at me", "Remind me to water the plants every Friday at 7pm", "on Dec 1st", "'", ":", ""} {
		f.Add(p, twoTasks)
	}
	f.Fuzz(func(t *testing.T, prompt, content string) {
		for _, rounds := range [][][]result{nil, {{ok("read_tasks", content)}}, {{ok("create_task", content)}, {ok("update_task", content)}}} {
			got := reply(turn{prompt: prompt, rounds: rounds, system: allTools, now: today})
			for _, c := range got.calls {
				var v map[string]any
				if err := json.Unmarshal([]byte(c.Args), &v); err != nil {
					t.Errorf("%q: %s arguments %s: %v", prompt, c.Name, c.Args, err)
				}
			}
		}
	})
}

// TestWithoutEditNote: the scripted model reads past the note toolstream
// puts before the result of a call approved with other arguments.
func TestWithoutEditNote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`"A person approving this call changed its arguments to {\"id\":2}; the result below is of the call with those arguments.\n\n{\"deleted\":{\"id\":2}}"`, `{"deleted":{"id":2}}`},
		{`{"deleted":{"id":2}}`, `{"deleted":{"id":2}}`},
		{`"plain text"`, `"plain text"`},
	} {
		if got := string(withoutEditNote(json.RawMessage(tt.in))); got != tt.want {
			t.Errorf("withoutEditNote(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
