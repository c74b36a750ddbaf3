package demo

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolstream/toolstream/examples/tools/kanban"
	"github.com/toolstream/toolstream/examples/tools/tasks"
)

// The example tools' arguments, as structs so that the keys keep the
// order a person reads them in.
type (
	taskArgs struct {
		ID       int    `json:"id,omitempty"`
		Title    string `json:"title,omitempty"`
		Due      string `json:"due,omitempty"`
		Priority int    `json:"priority,omitempty"`
		Done     *bool  `json:"done,omitempty"`
	}
	readArgs struct {
		Status string `json:"status,omitempty"`
		Due    string `json:"due,omitempty"`
	}
	scheduleArgs struct {
		Title  string `json:"title"`
		Every  string `json:"every"`
		At     string `json:"at"`
		Starts string `json:"starts,omitempty"`
	}
	cardArgs struct {
		ID     int    `json:"id,omitempty"`
		Title  string `json:"title,omitempty"`
		Column string `json:"column,omitempty"`
	}
	nameArgs struct {
		Name string `json:"name"`
	}
)

// maxRounds bounds the rounds the model plans for one prompt: a lookup,
// the call, the answer.
const maxRounds = 3

// reply is what the model writes this round: the calls the prompt asks
// for, or, once their results are in, the answer from them.
func reply(t turn) step {
	in := parse(t.prompt, t.now)
	if s, ok := located(in, t); ok {
		return s
	}
	switch {
	case len(t.rounds) == 0:
		return first(in, &t)
	case len(t.rounds) < maxRounds && lookup(in, t.rounds[len(t.rounds)-1]):
		return found(in, &t, t.rounds[len(t.rounds)-1][0])
	}
	return answer(in, &t)
}

// first is the first round: the calls, announced.
func first(in intent, t *turn) step {
	tool := toolOf(in)
	if tool != "" && !t.taught(tool) {
		return step{say: fmt.Sprintf("I can't do that here: the proxy did not give me the %s tool.", tool)}
	}
	switch in.kind {
	case createTasks:
		if slices.Contains(in.titles, "") {
			return step{say: "What should the task say? Tell me like “Put a dentist appointment on my task board”."}
		}
		var calls []call
		for i, title := range in.titles {
			p := in.priority
			if p == 0 && len(in.titles) > 1 {
				// A list comes in the order it matters.
				p = min(i+1, 3)
			}
			calls = append(calls, newCall("create_task", taskArgs{Title: title, Due: in.due, Priority: p}))
		}
		what := fmt.Sprintf("%q", in.titles[0])
		if len(in.titles) > 1 {
			what = "those " + numberWord(len(in.titles))
		}
		return step{say: fmt.Sprintf("Sure — I'll put %s on your board%s.", what, forWhen(in)), calls: calls}
	case createSchedule:
		return step{say: fmt.Sprintf("Sure — I'll set up %q %s at %s.", in.titles[0], everyWords(in), in.at),
			calls: []call{newCall("create_schedule", scheduleArgs{in.titles[0], in.every, in.at, in.due})}}
	case listTasks:
		return step{say: "Let me look at your list.", calls: []call{newCall("read_tasks", readArgs{in.status, in.due})}}
	case updateTask, deleteTask:
		if in.kind == updateTask && !changes(in) {
			return step{say: "What should I change? I can mark a task done or open, rename it, give it a due date or a priority: say e.g. “Mark task 1 as done” or “Move task 1 to Friday”."}
		}
		if in.id != 0 {
			return act(in, in.id)
		}
		if in.ref == "" {
			return step{say: "Which task? Say its number (“Delete task 1”) or its title; “What is on my list?” shows both."}
		}
		if allRE.MatchString(in.ref) {
			return step{say: "I do one task at a time, so that a delete can wait for your approval: say “Delete task 1” or “Mark task 1 as done”; “What is on my list?” shows their numbers."}
		}
		return step{say: fmt.Sprintf("Let me find %q on your list.", in.ref), calls: []call{newCall("read_tasks", readArgs{})}}
	case createCard:
		if in.titles[0] == "" {
			return step{say: "What should the card say? Tell me like “Add a card 'Fix the login page' to the kanban board”."}
		}
		return step{say: "I'll put that on the kanban board.",
			calls: []call{newCall("create_card", cardArgs{Title: in.titles[0], Column: in.column})}}
	case moveCard, deleteCard:
		if in.kind == moveCard && in.column == "" {
			return step{say: "To which column? The board has todo, doing and done: say e.g. “Move card 1 to doing”."}
		}
		id := in.id
		if id == 0 {
			id = cardByTitle(in.ref, t.earlier)
		}
		if id == 0 {
			return step{say: "Which card? The kanban tools take a card's number, which I told you when I made it: say e.g. “Move card 1 to done”."}
		}
		return act(in, id)
	case avatarMove:
		return avatar(in)
	}
	return step{say: helpText}
}

// toolOf is the tool the intent's first round calls; "" for none.
func toolOf(in intent) string {
	switch in.kind {
	case createTasks:
		return "create_task"
	case createSchedule:
		return "create_schedule"
	case listTasks:
		return "read_tasks"
	case updateTask, deleteTask:
		if in.id == 0 {
			return "read_tasks"
		}
		return map[kind]string{updateTask: "update_task", deleteTask: "delete_task"}[in.kind]
	case createCard:
		return "create_card"
	case moveCard:
		return "move_card"
	case deleteCard:
		return "delete_card"
	case avatarMove:
		if in.motion != "" {
			return "motion"
		}
		return "expression"
	}
	return ""
}

// act is the call that changes task or card id.
func act(in intent, id int) step {
	switch in.kind {
	case updateTask:
		a := taskArgs{ID: id, Title: in.newTitle, Due: in.due, Priority: in.priority, Done: in.done}
		return step{say: fmt.Sprintf("I'll %s.", changeWords(in, fmt.Sprintf("task #%d", id))), calls: []call{newCall("update_task", a)}}
	case deleteTask:
		return step{say: fmt.Sprintf("I'll delete task #%d; you will be asked to confirm.", id),
			calls: []call{newCall("delete_task", taskArgs{ID: id})}}
	case moveCard:
		return step{say: fmt.Sprintf("I'll move card #%d to %s.", id, in.column),
			calls: []call{newCall("move_card", cardArgs{ID: id, Column: in.column})}}
	}
	return step{say: fmt.Sprintf("I'll remove card #%d from the kanban board; you will be asked to confirm.", id),
		calls: []call{newCall("delete_card", cardArgs{ID: id})}}
}

// lookup reports whether round is the read_tasks that looks up the task
// an update or delete names by its title.
func lookup(in intent, round []result) bool {
	return (in.kind == updateTask || in.kind == deleteTask) && in.id == 0 &&
		len(round) == 1 && round[0].Name == "read_tasks"
}

// found acts on the task the lookup found, or says why it cannot.
func found(in intent, t *turn, r result) step {
	if r.Error != nil {
		return answer(in, t)
	}
	var list struct{ Tasks []tasks.Task }
	json.Unmarshal(r.Content, &list)
	titles := make([]string, len(list.Tasks))
	for i, task := range list.Tasks {
		titles[i] = task.Title
	}
	switch best := bestMatches(in.ref, titles); len(best) {
	case 0:
		return step{say: fmt.Sprintf("I found no task like %q on your list.%s", in.ref, listing(list.Tasks, " It holds:"))}
	case 1:
		return act(in, list.Tasks[best[0]].ID)
	default:
		var some []tasks.Task
		for _, i := range best {
			some = append(some, list.Tasks[i])
		}
		return step{say: fmt.Sprintf("Several tasks fit %q; which one?%s", in.ref, listing(some, ""))}
	}
}

// cardByTitle finds a card by its title among the cards made or moved
// earlier in the conversation: the kanban tools cannot list cards.
func cardByTitle(ref string, earlier []result) int {
	var cards []kanban.Card
	for _, r := range earlier {
		var c kanban.Card
		switch r.Name {
		case "create_card":
			json.Unmarshal(r.Content, &c)
		case "move_card":
			var m struct{ Card kanban.Card }
			json.Unmarshal(r.Content, &m)
			c = m.Card
		}
		if c.ID != 0 {
			cards = append(cards, c)
		}
	}
	titles := make([]string, len(cards))
	for i, c := range cards {
		titles[i] = c.Title
	}
	if best := bestMatches(ref, titles); len(best) == 1 {
		return cards[best[0]].ID
	}
	return 0
}

// avatar shows a face or a gesture in the middle of a sentence, the way
// an avatar's gestures go with the words.
func avatar(in intent) step {
	var calls []call
	if in.expression != "" {
		calls = append(calls, newCall("expression", nameArgs{in.expression}))
	}
	if in.motion != "" {
		calls = append(calls, newCall("motion", nameArgs{in.motion}))
	}
	if in.motion == "wave" {
		return step{say: "Hi there! ", calls: calls, then: []string{"It's good to see you. ", ""}}
	}
	then := make([]string, len(calls))
	return step{say: "Sure! ", calls: calls, then: then}
}

// helpText answers a prompt the model has no part for: the demo is a
// playground any client can be pointed at, and it should say what it can
// do rather than pretend.
const helpText = "Hello! I'm toolstream's scripted demo model: I understand a few kinds of requests " +
	"and answer them by calling the example tools through the proxy, with the tool activity in the stream. Try:\n" +
	"- “Put a dentist appointment on my task board for Friday”\n" +
	"- “What is on my list?”\n" +
	"- “Mark the dentist appointment as done”, “Rename task 1 to Call the dentist”\n" +
	"- “Delete task 1” (waits for your approval)\n" +
	"- “Remind me to water the plants every week at 9”\n" +
	"- “Add a card 'Fix the login page' to the kanban board”, “Move card 1 to doing”\n" +
	"- “Wave at me”, “Smile”"

func changes(in intent) bool {
	return in.done != nil || in.newTitle != "" || in.due != "" || in.priority != 0
}

// changeWords says what an update does to what: "mark task #2 as done".
func changeWords(in intent, what string) string {
	var w []string
	switch {
	case in.done != nil && *in.done:
		w = append(w, "mark "+what+" as done")
	case in.done != nil:
		w = append(w, "open "+what+" again")
	}
	if in.newTitle != "" {
		w = append(w, fmt.Sprintf("rename %s to %q", what, in.newTitle))
	}
	if in.due != "" {
		w = append(w, fmt.Sprintf("move %s to %s", what, dayWords(in)))
	}
	if in.priority != 0 {
		w = append(w, fmt.Sprintf("give %s priority %d", what, in.priority))
	}
	for i := 1; i < len(w); i++ {
		w[i] = strings.Replace(w[i], what, "it", 1)
	}
	return strings.Join(w, " and ")
}

// forWhen is " for tomorrow", " in 3 days", or "" with no due date.
func forWhen(in intent) string {
	switch w := dayWords(in); {
	case in.due == "":
		return ""
	case strings.HasPrefix(w, "in "):
		return " " + w
	default:
		return " for " + w
	}
}

// dayWords is the user's words for the due date and the date, once if
// they are the same.
func dayWords(in intent) string {
	if in.when == in.due {
		return in.due
	}
	return in.when
}

func everyWords(in intent) string {
	switch {
	case in.every == "daily":
		return "every day"
	case in.every == "monthly":
		return "every month"
	case in.when != "":
		return "every " + in.when
	}
	return "every week"
}

func numberWord(n int) string {
	if n < 10 {
		return []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}[n]
	}
	return fmt.Sprint(n)
}
