package demo

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// whenRE finds a date in a prompt the way people write one: "tomorrow",
// "on Friday", "by next Monday", "in 3 days", "next week", "Dec 1st",
// "2026-12-01". The words before the date ("on", "by", "due" …) belong to
// the match, so that taking it out of a title leaves no "on" behind.
var whenRE = regexp.MustCompile(`(?i)\b(?:(?:for|on|by|due|until|before|to|this|next)\s+)*` +
	`((?:the\s+)?day\s+after\s+tomorrow|today|tonight|tomorrow|` +
	`(?:mon|tues|wednes|thurs|fri|satur|sun)day|` +
	`in\s+(?:a|an|one|two|three|four|five|six|seven|\d+)\s+(?:days?|weeks?)|week|` +
	`\d{4}-\d{2}-\d{2}|` +
	`(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?)\b`)

// when is a date the user named: the day, and their words for it.
type when struct {
	date  string // YYYY-MM-DD
	words string // "tomorrow", "Friday"
	// span is where the phrase is in the prompt, its lead-in words
	// included.
	span [2]int
}

// findWhen returns the first date in s, counted from now; ok is false
// when s names none.
func findWhen(s string, now time.Time) (w when, ok bool) {
	for _, m := range whenRE.FindAllStringSubmatchIndex(s, -1) {
		core := strings.ToLower(s[m[2]:m[3]])
		// "week" alone is only a date as "next week".
		if core == "week" && !strings.Contains(strings.ToLower(s[m[0]:m[2]]), "next") {
			continue
		}
		d, words, ok := dateOf(core, now)
		if !ok {
			continue
		}
		return when{date: d.Format(time.DateOnly), words: words, span: [2]int{m[0], m[1]}}, true
	}
	return when{}, false
}

var numberWords = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}

// dateOf turns the core of a date phrase into a day.
func dateOf(core string, now time.Time) (time.Time, string, bool) {
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	core = strings.Join(strings.Fields(core), " ")
	switch {
	case core == "today" || core == "tonight":
		return today, core, true
	case core == "tomorrow":
		return today.AddDate(0, 0, 1), core, true
	case strings.HasSuffix(core, "day after tomorrow"):
		return today.AddDate(0, 0, 2), "the day after tomorrow", true
	case core == "week":
		return today.AddDate(0, 0, 7), "next week", true
	case strings.HasPrefix(core, "in "):
		f := strings.Fields(core) // in N days|weeks
		n, err := strconv.Atoi(f[1])
		if err != nil {
			n = numberWords[f[1]]
		}
		if strings.HasPrefix(f[2], "week") {
			n *= 7
		}
		return today.AddDate(0, 0, n), core, n > 0
	case strings.HasSuffix(core, "day"):
		for d := 1; d <= 7; d++ {
			day := today.AddDate(0, 0, d)
			if strings.ToLower(day.Weekday().String()) == core {
				// The next one to come: "on Friday" said on a Friday
				// is a week away.
				return day, day.Weekday().String(), true
			}
		}
	case core[0] >= '0' && core[0] <= '9':
		d, err := time.ParseInLocation(time.DateOnly, core, now.Location())
		return d, core, err == nil
	default:
		f := strings.Fields(strings.TrimRight(core, "stndrh."))
		if len(f) == 2 {
			return monthDay(f[0], f[1], today)
		}
	}
	return time.Time{}, "", false
}

// monthDay is "dec 1st": that day this year, or next year once it has
// passed.
func monthDay(month, day string, today time.Time) (time.Time, string, bool) {
	n, err := strconv.Atoi(strings.TrimRight(day, "stndrh"))
	if err != nil || n < 1 || n > 31 {
		return time.Time{}, "", false
	}
	for m := time.January; m <= time.December; m++ {
		if !strings.HasPrefix(strings.ToLower(m.String()), strings.TrimSuffix(month, ".")[:3]) {
			continue
		}
		d := time.Date(today.Year(), m, n, 0, 0, 0, 0, today.Location())
		if d.Before(today) {
			d = d.AddDate(1, 0, 0)
		}
		return d, m.String() + " " + strconv.Itoa(n), d.Month() == m
	}
	return time.Time{}, "", false
}
