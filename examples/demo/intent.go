package demo

import (
	"strconv"
	"strings"
	"time"
)

// kind is what the user asks the scripted model for.
type kind int

const (
	askHelp kind = iota
	createTasks
	createSchedule
	listTasks
	updateTask
	deleteTask
	createCard
	moveCard
	deleteCard
	avatarMove
)

// intent is a prompt as the scripted model understands it: what to do,
// and the arguments it found in the user's words.
type intent struct {
	kind   kind
	titles []string // createTasks (one per task), createCard, createSchedule
	due    string   // YYYY-MM-DD: a task's due date, or read_tasks' filter
	when   string   // the user's words for due: "tomorrow", "Friday"
	// priority is 1 to 3 when the user gave one; a list of tasks gets
	// them in the order given.
	priority int
	// id names an existing task or card; ref, when id is 0, words of its
	// title to look for.
	id  int
	ref string
	// done and newTitle are what updateTask changes, beside due and
	// priority.
	done     *bool
	newTitle string
	// column is the kanban column a card goes to.
	column string
	// status filters listTasks: open or done; "" is all.
	status string
	// expression and motion are avatarMove's.
	expression, motion string
	// every and at are createSchedule's; due is its first day.
	every, at string
}

// parse reads a prompt. now is the day dates are counted from. The
// kanban board is asked for by name; the avatar's moves are asked for
// without a word about tasks; then the first task verb decides.
func parse(prompt string, now time.Time) intent {
	p := strings.TrimSpace(prompt)
	in := intent{}
	if w, ok := findWhen(p, now); ok {
		in.due, in.when = w.date, w.words
	}
	if m := idRE.FindStringSubmatch(p); m != nil {
		in.id, _ = strconv.Atoi(m[1])
	}
	if cardRE.MatchString(p) {
		return parseCard(p, in)
	}
	aboutTasks := taskNounRE.MatchString(p) || remindRE.MatchString(p)
	if !aboutTasks {
		if in.expression, in.motion = avatarOf(p); in.expression != "" || in.motion != "" {
			in.kind = avatarMove
			return in
		}
	}
	k, at := taskVerb(p)
	switch k {
	case askHelp:
		if !taskNounRE.MatchString(p) {
			return intent{}
		}
		// "My tasks?"
		in.kind, in.status = listTasks, statusOf(p)
		return in
	case createTasks:
		if in.id != 0 {
			// "Make task 2 urgent": a task that exists.
			return parseUpdate(p, in, at, now)
		}
		if !aboutTasks && in.due == "" && !quotedRE.MatchString(p) {
			// "Create a poem": not a task.
			return intent{}
		}
		if m := everyRE.FindStringSubmatch(p); m != nil {
			return parseSchedule(p, m, now)
		}
		in.kind, in.titles, in.priority = createTasks, titlesOf(p, now), priorityOf(p)
		return in
	case listTasks:
		if !taskNounRE.MatchString(p) && !dueWordRE.MatchString(p) {
			// "What's the weather like?"
			return intent{}
		}
		in.kind, in.status = listTasks, statusOf(p)
		return in
	case deleteTask:
		in.kind = deleteTask
		if in.id == 0 {
			in.ref = refOf(p, at, now)
		}
		return in
	}
	return parseUpdate(p, in, at, now)
}

// taskVerb is the kind of the first task verb in p ("Create three tasks
// … then tell me what you did" creates), and where the verb ends.
func taskVerb(p string) (kind, int) {
	k, first, end := askHelp, len(p)+1, 0
	for _, v := range verbs {
		if m := v.re.FindStringIndex(p); m != nil && m[0] < first {
			k, first, end = v.kind, m[0], m[1]
		}
	}
	return k, end
}

// parseUpdate reads what changes in a task: done or open, its title, due
// date or priority.
func parseUpdate(p string, in intent, at int, now time.Time) intent {
	in.kind = updateTask
	yes, no := true, false
	switch {
	case reopenRE.MatchString(p):
		in.done = &no
	case doneRE.MatchString(p):
		in.done = &yes
	}
	rest := p[at:]
	if renameRE.MatchString(p) {
		if qs := quotedRE.FindAllStringSubmatch(p, -1); len(qs) >= 2 {
			// "Rename 'Go to the gym' to 'Gym'"
			in.newTitle, rest = cleanTitle(qs[1][1]), qs[0][0]
		} else if m := renameToRE.FindStringSubmatch(rest); m != nil {
			in.newTitle, rest = cleanTitle(unquote(m[2])), m[1]
		}
	}
	in.priority = priorityOf(p)
	if in.priority != 0 && !doneWordRE.MatchString(p) {
		in.done = nil // "Mark task 2 as urgent"
	}
	if in.id == 0 {
		in.ref = refOf(p[:at]+rest, at, now)
	}
	if in.done != nil || in.newTitle != "" || in.priority != 0 {
		// A date in "mark tomorrow's dentist appointment done" names
		// the task, it is not a new due date.
		in.due, in.when = "", ""
	}
	return in
}

// refOf is the words naming a task after its verb, which ends at at:
// "Mark the dentist appointment as done" names "dentist appointment".
func refOf(p string, at int, now time.Time) string {
	if q := unquote(p); q != p {
		return q
	}
	rest := p[at:]
	if w, ok := findWhen(rest, now); ok {
		rest = rest[:w.span[0]] + rest[w.span[1]:]
	}
	rest = stateWordsRE.ReplaceAllString(rest, " ")
	rest = placeRE.ReplaceAllString(rest, " ")
	rest = fillerRE.ReplaceAllString(rest, " ")
	return strings.Trim(leadRE.ReplaceAllString(strings.TrimSpace(rest), ""), " .,!?:;")
}

// parseCard reads a kanban prompt: a new card, a move or a removal.
func parseCard(p string, in intent) intent {
	in.column = columnOf(quotedRE.ReplaceAllString(p, " "))
	q := unquote(p)
	switch {
	case cardDeleteRE.MatchString(p):
		in.kind = deleteCard
	case cardMoveRE.MatchString(p) || in.id != 0 && q == p:
		in.kind = moveCard
	default:
		in.kind, in.id = createCard, 0
		if q == p {
			q = cardTitleOf(p)
		}
		in.titles = []string{q}
		if in.column == "" {
			in.column = "todo"
		}
		return in
	}
	if in.id == 0 {
		if q == p {
			q = cardTitleOf(p)
		}
		in.ref = q
	}
	return in
}

// parseSchedule reads a recurring task: "Remind me to water the plants
// every week at 9". every is everyRE's match.
func parseSchedule(p string, every []string, now time.Time) intent {
	in := intent{kind: createSchedule}
	switch unit := strings.ToLower(every[1] + every[2]); unit {
	case "daily", "day", "morning", "evening", "night":
		in.every = "daily"
	case "monthly", "month":
		in.every = "monthly"
	default:
		in.every = "weekly"
		if strings.HasSuffix(unit, "day") {
			// "every Friday": weekly, from the next Friday on.
			w, _ := findWhen(unit, now)
			in.due, in.when = w.date, w.words
		}
	}
	in.at = "09:00"
	if m := atRE.FindStringSubmatch(p); m != nil {
		h, _ := strconv.Atoi(m[1])
		if strings.EqualFold(m[3], "pm") && h < 12 {
			h += 12
		}
		minute := m[2]
		if minute == "" {
			minute = "00"
		}
		in.at = strconv.Itoa(h/10) + strconv.Itoa(h%10) + ":" + minute
	}
	s := atRE.ReplaceAllString(everyRE.ReplaceAllString(p, " "), " ")
	in.titles = titlesOf(s, now)[:1]
	return in
}
