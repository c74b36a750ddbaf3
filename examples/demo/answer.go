package demo

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/toolstream/toolstream/examples/tools/kanban"
	"github.com/toolstream/toolstream/examples/tools/tasks"
)

// serveHint is what to do when the example tool servers do not answer:
// with -tools, the demo calls servers the user starts.
const serveHint = "start the example tools: go run ./examples/tools/serve"

// answer is the last round: what the calls did, read from their results.
func answer(in intent, t *turn) step {
	var all []result
	for _, r := range t.rounds {
		all = append(all, r...)
	}
	var (
		b      strings.Builder
		failed []result
		ok     []result
	)
	for _, r := range all {
		if r.Error != nil {
			failed = append(failed, r)
		} else if r.Name != "read_tasks" || in.kind == listTasks {
			ok = append(ok, r)
		}
	}
	if len(ok) > 0 {
		b.WriteString(done(in, ok))
	}
	if len(failed) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(failures(in, failed))
	}
	if b.Len() == 0 {
		b.WriteString("That did not work: the tools did not answer as expected.")
	}
	return step{say: b.String()}
}

// done says what the calls that worked did.
func done(in intent, ok []result) string {
	switch in.kind {
	case createTasks:
		var made []tasks.Task
		for _, r := range ok {
			var task tasks.Task
			json.Unmarshal(r.Content, &task)
			made = append(made, task)
		}
		if len(made) == 1 {
			t := made[0]
			due := ""
			if t.Due != "" {
				due = ", due " + t.Due
			}
			return fmt.Sprintf("Done: %q is task #%d on your board%s. Anything else?", t.Title, t.ID, due)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Done! I created %d tasks", len(made))
		if d := made[0].Due; d != "" && in.due == d {
			b.WriteString(forWhen(in))
			if in.when != d {
				fmt.Fprintf(&b, " (%s)", d)
			}
		}
		b.WriteString(":\n")
		for _, t := range made {
			fmt.Fprintf(&b, "- #%d %s\n", t.ID, t.Title)
		}
		b.WriteString("Anything else?")
		return b.String()
	case createSchedule:
		var s tasks.Schedule
		json.Unmarshal(ok[0].Content, &s)
		return fmt.Sprintf("Done: %q is schedule #%d, %s at %s, starting %s.", s.Title, s.ID, s.Every, s.At, s.Starts)
	case listTasks:
		var list struct{ Tasks []tasks.Task }
		json.Unmarshal(ok[0].Content, &list)
		which := map[string]string{"open": " open", "done": " done"}[in.status]
		due := ""
		if in.due != "" {
			due = " due " + dayWords(in)
		}
		if len(list.Tasks) == 0 {
			if which == "" && due == "" {
				return "Your task list is empty. Try “Put a dentist appointment on my task board”."
			}
			return fmt.Sprintf("You have no%s tasks%s.", which, due)
		}
		return fmt.Sprintf("You have %s%s%s:%s", count(len(list.Tasks), "task"), which, due, listing(list.Tasks, ""))
	case updateTask:
		var t tasks.Task
		json.Unmarshal(ok[0].Content, &t)
		return "Done. Here it is now: " + taskLine(t) + "."
	case deleteTask:
		var d struct{ Deleted tasks.Task }
		json.Unmarshal(ok[0].Content, &d)
		return fmt.Sprintf("Deleted task #%d %q.", d.Deleted.ID, d.Deleted.Title)
	case createCard:
		var c kanban.Card
		json.Unmarshal(ok[0].Content, &c)
		return fmt.Sprintf("Done: %q is card #%d in the %s column of the kanban board.", c.Title, c.ID, c.Column)
	case moveCard:
		var m struct {
			Card kanban.Card
			From string
		}
		json.Unmarshal(ok[0].Content, &m)
		return fmt.Sprintf("Moved card #%d %q from %s to %s.", m.Card.ID, m.Card.Title, m.From, m.Card.Column)
	case deleteCard:
		var d struct{ Deleted kanban.Card }
		json.Unmarshal(ok[0].Content, &d)
		return fmt.Sprintf("Removed card #%d %q from the kanban board.", d.Deleted.ID, d.Deleted.Title)
	case avatarMove:
		if in.motion == "wave" {
			return "\nAnything I can do for you today?"
		}
		return "\nAnything else?"
	}
	return ""
}

// failures says what went wrong, in the tools' words. A denied call is
// the user's choice, not a failure.
func failures(in intent, failed []result) string {
	var (
		lines   []string
		refused bool
	)
	for _, r := range failed {
		switch {
		case r.Error.Code == "DENIED":
			what := map[string]string{"delete_task": "delete the task", "delete_card": "remove the card"}[r.Name]
			if what == "" {
				what = "run " + r.Name
			}
			why := "you did not approve it" + deniedWhy(r.Error.Message)
			if strings.HasPrefix(r.Error.Message, "nobody approved") {
				why = "nobody approved it in time"
			}
			lines = append(lines, fmt.Sprintf("OK, I did not %s: %s.", what, why))
		case strings.Contains(r.Error.Message, "connection refused"):
			refused = true
			lines = append(lines, fmt.Sprintf("%s failed: %s.", r.Name, r.Error.Message))
		default:
			lines = append(lines, fmt.Sprintf("%s failed (%s): %s", r.Name, r.Error.Code, r.Error.Message))
		}
	}
	if refused {
		lines = append(lines, "Are the example tool servers running? To "+serveHint)
	}
	if in.kind == avatarMove {
		return "\n(My avatar could not do that: " + strings.Join(lines, " ") + ")"
	}
	return strings.Join(lines, "\n")
}

// deniedWhy is " (reason)" when the user gave a reason for a deny, as the
// proxy words it: "the user denied this call: <reason>. Do not retry …".
func deniedWhy(msg string) string {
	_, why, ok := strings.Cut(msg, "denied this call: ")
	if !ok {
		return ""
	}
	why, _, _ = strings.Cut(why, ". Do not retry")
	return " (" + strings.TrimSuffix(why, ".") + ")"
}

// listing is tasks one a line, each after a newline, behind intro.
func listing(list []tasks.Task, intro string) string {
	if len(list) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(intro)
	for _, t := range list {
		b.WriteString("\n- " + taskLine(t))
	}
	return b.String()
}

// taskLine is "#4 Dentist appointment (due 2026-11-27, priority 1, done)".
func taskLine(t tasks.Task) string {
	var about []string
	if t.Due != "" {
		about = append(about, "due "+t.Due)
	}
	if t.Priority != 0 {
		about = append(about, fmt.Sprintf("priority %d", t.Priority))
	}
	if t.Done {
		about = append(about, "done")
	}
	line := fmt.Sprintf("#%d %s", t.ID, t.Title)
	if len(about) > 0 {
		line += " (" + strings.Join(about, ", ") + ")"
	}
	return line
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// bestMatches are the indexes of the titles that fit ref best: the one
// ref names exactly, else those sharing the most words with it.
func bestMatches(ref string, titles []string) []int {
	want := words(ref)
	var best []int
	top := 0
	for i, title := range titles {
		score := 0
		if strings.EqualFold(strings.TrimSpace(title), strings.TrimSpace(ref)) {
			score = 100
		} else {
			have := words(title)
			for w := range want {
				if have[w] {
					score++
				}
			}
		}
		switch {
		case score == 0 || score < top:
		case score > top:
			top, best = score, []int{i}
		default:
			best = append(best, i)
		}
	}
	return best
}

// stopWords carry no meaning in a title's match.
var stopWords = map[string]bool{"the": true, "and": true, "for": true, "task": true, "tasks": true, "card": true, "list": true, "board": true, "please": true}

// words are the words of s that tell titles apart, lower case.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) >= 3 && !stopWords[w] {
			out[w] = true
		}
	}
	return out
}
