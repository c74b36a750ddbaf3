package demo

import (
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The scripted model's vocabulary: the words it reads a prompt by. It is
// a demo's, not a language model's: enough for what a newcomer types to
// try the example tools, and a help answer for the rest.
var (
	cardRE     = regexp.MustCompile(`(?i)\b(cards?|kanban)\b`)
	taskNounRE = regexp.MustCompile(`(?i)\b(tasks?|to-?dos?|to do|lists?|board|agenda|calendar|reminders?)\b`)
	// remindRE is a task said as what the user must do.
	remindRE  = regexp.MustCompile(`(?i)\b(remind me|i need to|i have to|i must|don't let me forget to|do not let me forget to)\b`)
	dueWordRE = regexp.MustCompile(`(?i)\b(due|on my plate)\b`)
	// quotedRE is a phrase in straight or curly quotes; an apostrophe
	// inside a word ("What's") opens none.
	quotedRE = regexp.MustCompile(`(?:^|[\s(:,])["'“‘]([^"“”‘’]+?)["'”’](?:$|[\s.,!?:;)])`)
	// idRE is a task's or card's number: "task 2", "card #3", "#4".
	idRE     = regexp.MustCompile(`(?i)(?:\b(?:task|card|number|no\.?)\s*#?|#)(\d+)\b`)
	everyRE  = regexp.MustCompile(`(?i)\b(?:every\s+(day|morning|evening|night|week|month|(?:mon|tues|wednes|thurs|fri|satur|sun)day)|(daily|weekly|monthly))\b`)
	atRE     = regexp.MustCompile(`(?i)\bat\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b`)
	columnRE = regexp.MustCompile(`(?i)(?:\b(?:in|into|to|under)\s+(?:the\s+)?)?\b(to[ -]?do|doing|in progress|done|finished)\b(?:\s+column)?`)

	reopenRE     = regexp.MustCompile(`(?i)\b(reopen|uncheck|undo|not done|undone|not finished|open again)\b`)
	doneRE       = regexp.MustCompile(`(?i)\b(mark|tick|check off|complete|completed|finish|finished|did|done)\b`)
	doneWordRE   = regexp.MustCompile(`(?i)\b(tick|check off|complete|completed|finish|finished|did|done)\b`)
	renameRE     = regexp.MustCompile(`(?i)\b(rename|call it|retitle|title)\b`)
	renameToRE   = regexp.MustCompile(`(?i)^(.*?)\s+(?:to|as)\s+(.+)$`)
	stateWordsRE = regexp.MustCompile(`(?i)\b(as\s+)?(not\s+)?(done|complete|completed|finished|undone|open again)\b`)
	allRE        = regexp.MustCompile(`(?i)^(all|every|everything)\b`)
	fillerRE     = regexp.MustCompile(`(?i)\b(please|it|off|again)\b`)
	cardDeleteRE = regexp.MustCompile(`(?i)\b(delete|remove|drop|get rid of)\b`)
	cardMoveRE   = regexp.MustCompile(`(?i)\bmove\b`)

	// placeRE is where a task goes or comes from: "on my task board",
	// "to my to-do list", "from the list".
	placeRE = regexp.MustCompile(`(?i)\b(on|to|onto|in|into|from|off|of)\s+(my|the)\s+((task|to-?do)\s+)?(board|list|tasks|agenda|calendar)\b`)
	// leadRE is what comes before a title: articles, "task", "called".
	leadRE     = regexp.MustCompile(`(?i)^((the|a|an|my)(\s+|$))*((task|to-?do|item)(\s+|$))?((called|named|titled)(\s+|$))?`)
	priorityRE = regexp.MustCompile(`(?i)\b(with\s+)?(high|low|top)\s+priority\b|\b(with\s+)?priority\s+[1-3]\b|\b(urgent|important|asap)\b`)
	listSepRE  = regexp.MustCompile(`(?i)\s*[,;]\s*(?:and\s+)?|\s+and\s+`)

	taskVerbRE    = regexp.MustCompile(`(?i)^.*?\b(add|put|create|make|new|schedule|plan|note|write down|jot down|(remind me|i need|i have|i must|forget)( to| about)?)\s+`)
	taskObjectRE  = regexp.MustCompile(`(?i)^(a |an |the )?(new )?(task|to-?do|reminder|item)s?(\s+(to|for|called|named|titled|saying|about)\b|:)?\s*`)
	cardVerbRE    = regexp.MustCompile(`(?i)^.*?\b(add|put|create|make|move|delete|remove|drop)\s+`)
	cardObjectRE  = regexp.MustCompile(`(?i)\b(a |an |the )?(new )?(kanban )?cards?\b(\s+(to|for|called|named|titled|saying|about)\b|:)?`)
	cardPlaceRE   = regexp.MustCompile(`(?i)\b(to|on|onto|in|into|from|off)\s+(the|my)\s+(kanban\s*)?(board|column)?\b`)
	kanbanWordsRE = regexp.MustCompile(`(?i)\b(kanban|board)\b`)

	priorityNRE     = regexp.MustCompile(`(?i)\bpriority\s+([1-3])\b`)
	priorityHiRE    = regexp.MustCompile(`(?i)\b((high|top) priority|urgent|important|asap)\b`)
	statusDoneRE    = regexp.MustCompile(`(?i)\b(done|finished|completed)\b`)
	statusOpenRE    = regexp.MustCompile(`(?i)\b(open|left|remaining|to do|todo|still|pending|unfinished)\b`)
	motionWords     = []wordName{word(`wave|waving|greet`, "wave"), word(`nod`, "nod"), word(`shake (your )?head`, "shake_head"), word(`bow`, "bow"), word(`jump`, "jump")}
	expressionWords = []wordName{word(`smile|smiling`, "smile"), word(`laugh|laughing`, "laugh"), word(`surprised?`, "surprised"), word(`sad`, "sad"), word(`think|thinking`, "thinking"), word(`neutral`, "neutral")}
)

// verbs say which task action a prompt asks for; taskVerb takes the first
// one in the prompt.
var verbs = []struct {
	kind kind
	re   *regexp.Regexp
}{
	{createTasks, regexp.MustCompile(`(?i)\b(add|put|create|make|new|schedule|plan|remind me|i need to|i have to|i must|let me forget|note|write down|jot down)\b`)},
	{listTasks, regexp.MustCompile(`(?i)\b(what|what's|whats|show|list|which|how many|read|see|tell me|do i have|anything)\b`)},
	{updateTask, regexp.MustCompile(`(?i)\b(mark|tick|check off|complete|finish|finished|did|rename|change|move|postpone|reschedule|push|reopen|uncheck|prioriti[sz]e|(?:is|are) (?:done|finished|complete))\b`)},
	{deleteTask, regexp.MustCompile(`(?i)\b(delete|remove|drop|erase|get rid of|cancel|scrap)\b`)},
}

// wordName is an avatar's words and the expression or motion they ask
// for.
type wordName struct {
	re   *regexp.Regexp
	name string
}

func word(words, name string) wordName {
	return wordName{regexp.MustCompile(`(?i)\b(` + words + `)\b`), name}
}

// titlesOf is the tasks a prompt asks to create: quoted phrases, a list
// after a colon ("Create three tasks: buy groceries, call the plumber
// and renew my passport"), or the words between the verb and the board.
func titlesOf(p string, now time.Time) []string {
	if qs := quotedRE.FindAllStringSubmatch(p, -1); qs != nil {
		var out []string
		for _, q := range qs {
			out = append(out, cleanTitle(q[1]))
		}
		return out
	}
	if _, list, ok := strings.Cut(p, ":"); ok {
		var out []string
		for _, item := range listSepRE.Split(firstSentence(list), -1) {
			if t := cleanTitle(item); t != "" {
				out = append(out, t)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	s := firstClause(firstSentence(p))
	if w, ok := findWhen(s, now); ok {
		s = s[:w.span[0]] + " " + s[w.span[1]:]
	}
	s = taskVerbRE.ReplaceAllString(strings.Join(strings.Fields(s), " "), "")
	s = taskObjectRE.ReplaceAllString(s, "")
	s = placeRE.ReplaceAllString(s, " ")
	s = priorityRE.ReplaceAllString(s, " ")
	return []string{cleanTitle(s)}
}

// cardTitleOf is a card's title said without quotes: "Add a card to fix
// the login page" is "Fix the login page".
func cardTitleOf(p string) string {
	s := firstSentence(p)
	s = cardVerbRE.ReplaceAllString(s, "")
	s = cardPlaceRE.ReplaceAllString(s, " ")
	s = cardObjectRE.ReplaceAllString(s, " ")
	s = columnRE.ReplaceAllString(s, " ")
	s = kanbanWordsRE.ReplaceAllString(s, " ")
	return cleanTitle(s)
}

// cleanTitle makes words a title: no article or punctuation around it,
// the first letter upper case.
func cleanTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.Trim(leadRE.ReplaceAllString(s, ""), " .,!?:;-")
	s = strings.TrimSuffix(strings.TrimSuffix(s, " please"), ",")
	if s == "" {
		return ""
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// firstSentence is s up to its first full stop, question or exclamation
// mark (a date like 2026-12-01 has none of them).
func firstSentence(s string) string {
	if i := strings.IndexAny(s, ".?!"); i >= 0 {
		return s[:i]
	}
	return s
}

// firstClause is s up to a clause that asks for something else ("Put a
// dentist appointment on my board, and wave at me"): its words are not
// the task's title.
func firstClause(s string) string {
	for _, sep := range []string{", and ", ", then ", "; ", " and then "} {
		if i := strings.Index(s, sep); i >= 0 {
			s = s[:i]
		}
	}
	return s
}

// unquote is the first quoted phrase of p, or p when it quotes nothing.
func unquote(p string) string {
	if m := quotedRE.FindStringSubmatch(p); m != nil {
		return strings.TrimSpace(m[1])
	}
	return p
}

func priorityOf(p string) int {
	if m := priorityNRE.FindStringSubmatch(p); m != nil {
		return int(m[1][0] - '0')
	}
	switch {
	case priorityHiRE.MatchString(p):
		return 1
	case strings.Contains(strings.ToLower(p), "low priority"):
		return 3
	}
	return 0
}

func statusOf(p string) string {
	switch {
	case statusDoneRE.MatchString(p):
		return "done"
	case statusOpenRE.MatchString(p):
		return "open"
	}
	return ""
}

func columnOf(p string) string {
	m := columnRE.FindStringSubmatch(p)
	if m == nil {
		return ""
	}
	switch strings.ToLower(m[1]) {
	case "doing", "in progress":
		return "doing"
	case "done", "finished":
		return "done"
	}
	return "todo"
}

// avatarOf is the expression and motion a prompt asks the avatar for.
func avatarOf(p string) (expression, motion string) {
	motion, expression = firstWord(p, motionWords), firstWord(p, expressionWords)
	if motion == "wave" && expression == "" {
		// A wave is a greeting: it comes with a smile.
		expression = "smile"
	}
	return expression, motion
}

func firstWord(p string, list []wordName) string {
	for _, w := range list {
		if w.re.MatchString(p) {
			return w.name
		}
	}
	return ""
}
